import { describe, expect, it } from "vitest";
import { StageClock, timed, withStageClock } from "../../gpu-worker/engine/stage-clock";

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

  it("counts nothing outside a clock's run", async () => {
    const clock = new StageClock();
    await timed("fill", async () => burn(0.02));
    expect(clock.read().fill).toBe(0);
  });
});
