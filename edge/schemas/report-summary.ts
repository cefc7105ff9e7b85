import type { JobReport } from "../../contract/report";

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
const quoted = (lines: ReadonlyArray<{ text: string }>) =>
  lines
    .slice(0, 3)
    .map(({ text }) => (text ? `"${text}"` : "(unread)"))
    .join(", ") + (lines.length > 3 ? ", …" : "");

/** A job report in one sentence (the MCP tools' summaries, the `adclean` command). */
export function reportSummary(report: Omit<JobReport, "picture">): string {
  const erased = report.lines_erased.length > 0 ? ` (${quoted(report.lines_erased)})` : "";
  const kept =
    report.lines_kept.length > 0
      ? `kept ${count(report.lines_kept.length, "line")} on purpose (${report.lines_kept
          .slice(0, 3)
          .map((line) => `${line.text ? `"${line.text}"` : "(unread)"}: ${line.reason}`)
          .join(", ")})`
      : "kept no line";
  return (
    `Erased ${count(report.lines_erased.length, "line")}${erased} and ${count(report.areas_erased.length, "area")} ` +
    `on ${Math.round(report.frames_changed_share * 100)}% of the frames; ${kept}; ` +
    `the verify stage still found ${count(report.lines_still_found.length, "line")}.`
  );
}
