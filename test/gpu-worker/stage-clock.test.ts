import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { followThread, StageClock, timed, withStageClock } from "../../gpu-worker/engine/stage-clock";

/** Spins until this process has used `seconds` more CPU (a CPU amount, not a wall time). */
function burn(seconds: number): void {
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  };
  const until = cpu() + seconds;
  while (cpu() < until) {
    // spin
  }
}

describe("stage clock", () => {
  it("charges each stage its own CPU, a stage inside another taken out of the outer one", async () => {
    const clock = new StageClock();
    await withStageClock(clock, () =>
      timed("fill", async () => {
        burn(0.05);
        await timed("motion", async () => burn(0.1));
      }),
    );
    const seconds = clock.read();
    expect(seconds.motion).toBeGreaterThanOrEqual(0.1);
    expect(seconds.fill).toBeGreaterThanOrEqual(0.05);
    // Without the nesting rule fill would hold motion's 0.1 s too.
    expect(seconds.fill).toBeLessThan(0.09);
    expect(seconds.detection).toBe(0);
  });

  it("charges a task's work to its own stage while another task waits in another stage", async () => {
    const clock = new StageClock();
    await withStageClock(clock, async () => {
      // A search for a frame ahead pauses, and goes on while the frame before is being encoded.
      const search = timed("fill", async () => {
        await new Promise((resume) => setTimeout(resume, 1));
        burn(0.1);
      });
      await timed("encode", () => new Promise((written) => setTimeout(written, 20)));
      await search;
    });
    const seconds = clock.read();
    expect(seconds.fill).toBeGreaterThanOrEqual(0.1);
    // Charged to whichever stage was entered last, the search's 0.1 s would be the encoder's.
    expect(seconds.encode).toBeLessThan(0.05);
  });

  it("counts nothing outside a clock's run", async () => {
    const clock = new StageClock();
    await timed("fill", async () => burn(0.02));
    expect(clock.read().fill).toBe(0);
  });

  it("charges a followed thread's CPU to its stage, not to the stage the cleaning thread is in", async () => {
    // A thread that says its Linux id, then spins until its own CPU (in 10 ms ticks) grew by 0.3 s.
    // It keeps listening afterwards: a thread that has ended has no /proc entry left to read.
    const spinner = new Worker(
      `const { parentPort } = require("node:worker_threads");
       const { readFileSync } = require("node:fs");
       const stat = () => readFileSync("/proc/thread-self/stat", "utf8");
       const ticks = () => { const f = stat().slice(stat().lastIndexOf(")") + 2).split(" "); return Number(f[11]) + Number(f[12]); };
       parentPort.postMessage(Number.parseInt(stat(), 10));
       parentPort.on("message", () => { const until = ticks() + 30; while (ticks() < until) {} parentPort.postMessage("done"); });`,
      { eval: true },
    );
    const [tid] = (await once(spinner, "message")) as [number];
    const unfollow = followThread(tid, "fill");
    const clock = new StageClock();
    try {
      await withStageClock(clock, () =>
        // The cleaning thread waits (on the encoder, say) while the thread works.
        timed("encode", async () => {
          spinner.postMessage("go");
          await once(spinner, "message");
        }),
      );
    } finally {
      unfollow();
      await spinner.terminate();
    }
    const seconds = clock.read();
    expect(seconds.fill).toBeGreaterThanOrEqual(0.25);
    // Without following the thread, its 0.3 s would be the encoder's.
    expect(seconds.encode).toBeLessThan(0.1);
  });
});
