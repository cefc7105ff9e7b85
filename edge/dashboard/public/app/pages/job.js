// @ts-check
import { call } from "../api.js";
import { announce, duration, errorBox, h, integer, repeat, when, whileDisabled } from "../dom.js";
import { isActive, percent, stageLabel } from "../jobs-format.js";

const POLL_MS = 1500;

/**
 * Original and cleaned side by side (stacked on narrow screens), with the download.
 * @param {any} job with original_url and result
 */
function beforeAfter(job) {
  const player = (/** @type {string} */ id, /** @type {string} */ label, /** @type {string | null} */ src) =>
    h(
      "figure",
      {},
      src
        ? h("video", { id, src, controls: true, preload: "metadata", playsinline: true, "aria-label": label })
        : h("p", {}, "The original is no longer available."),
      h("figcaption", {}, label),
    );
  return h(
    "section",
    { "aria-labelledby": "result-title" },
    h("h2", { id: "result-title" }, "Before and after"),
    h(
      "div",
      { class: "before-after" },
      player("before-video", "Before (original)", job.original_url),
      player("after-video", "After (cleaned)", job.result.url),
    ),
    h(
      "p",
      {},
      h(
        "a",
        { id: "download", class: "button", href: job.result.url, download: "" },
        "Download the cleaned MP4",
      ),
      ` (${integer(Math.round((job.result.size_bytes ?? 0) / 1024))} KB; the address is valid until ${when(job.result.expires_at)})`,
    ),
  );
}

/**
 * One job: live status while it runs, then the before/after player and the download, or the error.
 * @param {HTMLElement} view
 * @param {string} jobId
 */
export async function renderJob(view, jobId) {
  const title = h("h1", {}, "Job");
  const summary = h("dl", { class: "facts" });
  const bar = h("progress", { id: "job-progress", max: "100", value: "0" });
  const barLabel = h("span", { id: "job-progress-label" });
  const live = h("p", {}, h("label", { for: "job-progress" }, "Progress "), bar, " ", barLabel);
  const cancel = h("button", { type: "button", class: "danger" }, "Cancel job");
  const outcome = h("div");
  view.append(h("p", {}, h("a", { href: "#/jobs" }, "← All jobs")), title, summary, live, cancel, outcome);

  /** @param {any} job */
  const show = (job) => {
    title.textContent = job.input.filename;
    summary.replaceChildren(
      ...[
        ["Status", h("span", { id: "job-status", class: `status status-${job.status}` }, job.status)],
        ["Stage", stageLabel(job.stage)],
        ["Length", duration(job.input.duration_seconds)],
        ["Credits", `${integer(job.credits)}${job.credits_refunded ? " (refunded)" : ""}`],
        ["Created", when(job.created_at)],
        ["Finished", when(job.finished_at)],
      ].flatMap(([term, detail]) => [h("dt", {}, term), h("dd", {}, detail)]),
    );
    bar.value = Math.round(job.progress * 100);
    barLabel.textContent = percent(job.progress);
    cancel.hidden = !isActive(job);
    live.hidden = !isActive(job);
  };

  cancel.addEventListener("click", () =>
    whileDisabled(
      cancel,
      async () => {
        show(await call("POST", `/jobs/${jobId}/cancel`));
        announce("Job canceled; its credits are back.");
      },
      (error) => outcome.replaceChildren(errorBox(error)),
    ),
  );

  let lastStatus = "";
  return repeat(POLL_MS, async () => {
    let job;
    try {
      job = await call("GET", `/jobs/${jobId}`);
    } catch (error) {
      outcome.replaceChildren(errorBox(error));
      return false;
    }
    show(job);
    if (job.status !== lastStatus && lastStatus) announce(`Job ${job.status}.`);
    lastStatus = job.status;
    if (isActive(job)) return true;
    if (job.status === "succeeded" && job.result) outcome.replaceChildren(beforeAfter(job));
    else if (job.error)
      outcome.replaceChildren(
        h("p", { class: "error", role: "alert" }, `${job.error.code}: ${job.error.message}`),
      );
    return false;
  });
}
