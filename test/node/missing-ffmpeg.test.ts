import { describe, expect, it } from "vitest";
import { npmRun } from "../helpers/stack";

/** FFMPEG_PATH pointing nowhere, as on a machine where ffmpeg was never installed. */
const NO_FFMPEG = { FFMPEG_PATH: "/nonexistent/ffmpeg", PORT: "18930", GPU_WORKER_PORT: "18931" };

describe("without ffmpeg, every command says so at once, with the command that installs it", () => {
  it.each([
    ["start", []],
    ["demo", []],
    ["clean", ["in.mp4", "-o", "out.mp4"]],
  ])("npm run %s refuses before anything says ready", async (script, args) => {
    const run = await npmRun(script, args, NO_FFMPEG);
    const output = run.stdout + run.stderr;
    expect(run.code).toBe(1);
    expect(output).toContain('ffmpeg cannot be run (tried "/nonexistent/ffmpeg", FFMPEG_PATH)');
    expect(output).toContain("sudo apt-get install ffmpeg");
    expect(output).not.toMatch(/ready|engine_ready/);
  });
});
