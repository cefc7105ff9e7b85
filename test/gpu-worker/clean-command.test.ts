import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeCaptionedClip } from "../fixtures/media";
import { npmRun } from "../helpers/stack";

const dir = mkdtempSync(path.join(tmpdir(), "adclean-clean-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run clean", () => {
  it('takes a text that starts with a dash (--text "-50% TODAY") and erases it', async () => {
    const input = path.join(dir, "price-cut.mp4");
    const output = path.join(dir, "price-cut-clean.mp4");
    makeCaptionedClip(input, 2, "-50% TODAY");
    const run = await npmRun("clean", [input, "-o", output, "--text", "-50% TODAY", "--json"]);
    expect(run.stderr).not.toContain("ambiguous");
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout) as { output: string; linesErased: number };
    expect(summary.output).toBe(output);
    expect(summary.linesErased).toBeGreaterThanOrEqual(1);
  });

  it("--json says where the CPU went, by stage (the bench's per-stage table reads it)", async () => {
    const input = path.join(dir, "sale.mp4");
    const output = path.join(dir, "sale-clean.mp4");
    makeCaptionedClip(input, 2, "SALE");
    const run = await npmRun("clean", [input, "-o", output, "--json"]);
    expect(run.code).toBe(0);
    const { cpu_seconds: stages } = JSON.parse(run.stdout) as { cpu_seconds: Record<string, number> };
    // ffmpeg's decoders and encoder are children, read from /proc; the models and the fill run here.
    for (const stage of ["load", "decode", "detection", "recognition", "masks", "fill", "encode"]) {
      expect(stages[stage], stage).toBeGreaterThan(0);
    }
  });
});
