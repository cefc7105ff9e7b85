import { AsyncLocalStorage, createHook, executionAsyncResource } from "node:async_hooks";
import { readFileSync } from "node:fs";

/**
 * Where a cleaning's CPU time goes, by stage. In-process stages are timed with process.cpuUsage(),
 * which counts every thread of the process (onnxruntime's pool too): the cleaning thread runs one
 * stage at a time, so the CPU spent between entering a stage and leaving it is that stage's, less
 * what the followed threads spent meanwhile (the fill's pool threads, which search ahead whatever
 * stage the cleaning thread is in): theirs is read from /proc and charged to their own stage. Several
 * tasks take turns on the cleaning thread (a frame's encoding awaits ffmpeg while a search for a frame
 * ahead goes on), so each callback and promise continuation runs as the stage that was running when it
 * was made, not as the stage some other task entered last (async_hooks, while a clock counts). ffmpeg's children
 * are read from /proc: a decoder's own CPU when its stream ends; the encoder ends last, after its
 * look-ahead is flushed, so it gets what remains of the children's total (Linux only; elsewhere the
 * children count zero).
 */
export const STAGES = [
  "load",
  "decode",
  "detection",
  "recognition",
  "motion",
  "masks",
  "fill",
  "encode",
  "other",
] as const;
export type Stage = (typeof STAGES)[number];
export type StageSeconds = Record<Stage, number>;

/** Kernel clock ticks per second in /proc's times (USER_HZ, 100 on every Linux build we run on). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) in a /proc stat line, from field `first` (utime, or cutime) on. */
function statSeconds(path: string, first: 14 | 16): number {
  try {
    const stat = readFileSync(path, "utf8");
    // The command name in parentheses may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const at = first - 3;
    return (Number(fields[at]) + Number(fields[at + 1])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * Threads of this process whose CPU is always one stage's, by Linux thread id: the fill's pool
 * threads (fill/pool.ts follows each while it lives).
 */
const followedThreads = new Map<number, Stage>();

/** Counts thread `tid`'s CPU as `stage`'s in every clock; returns the call that stops it. */
export function followThread(tid: number, stage: Stage): () => void {
  followedThreads.set(tid, stage);
  return () => followedThreads.delete(tid);
}

/** The calling thread's Linux thread id (the first field of its stat), undefined elsewhere. */
export function ownThreadId(): number | undefined {
  try {
    const tid = Number.parseInt(readFileSync("/proc/thread-self/stat", "utf8"), 10);
    return Number.isInteger(tid) ? tid : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds of this process's children that have ended and were waited for. */
export const endedChildrenSeconds = () => statSeconds("/proc/self/stat", 16);
const ownSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

export class StageClock {
  private readonly seconds = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as StageSeconds;
  private current: Stage = "other";
  private switchedAt = 0;
  private readonly childrenAtStart = endedChildrenSeconds();
  /** Children's CPU already given to a stage (probes, the trial encode), left out of the encoder's remainder. */
  private childrenCharged = 0;
  /** The last CPU reading of each followed child (decoders), by process id. */
  private readonly followed = new Map<number, { stage: Stage; seconds: number }>();
  /** The last CPU reading of each followed thread, by thread id: CPU before the first is not this clock's. */
  private readonly threadReadings = new Map<number, number>();

  /** The stage each callback or promise continuation belongs to, by its async resource. */
  private readonly resourceStages = new WeakMap<object, Stage>();
  /** The stages that ran before the callbacks running now, innermost last. */
  private readonly interrupted: Stage[] = [];
  private readonly hook = createHook({
    init: (_id, _type, _trigger, resource: object) => this.resourceStages.set(resource, this.current),
    before: () => {
      this.interrupted.push(this.current);
      const stage = this.resourceStages.get(executionAsyncResource());
      if (stage !== undefined && stage !== this.current) this.switchTo(stage);
    },
    after: () => {
      // Back on the event loop the stage stays as it is: the next callback switches only if it is
      // another stage's. A callback run inside another gives the outer one its stage back.
      const stage = this.interrupted.pop();
      if (this.interrupted.length > 0 && stage !== undefined && stage !== this.current) this.switchTo(stage);
    },
  });

  /**
   * With `fromProcessStart` (a command-line run), the CPU the process spent before the clock was made
   * (node's start, compiling the TypeScript) counts as load.
   */
  constructor(options: { fromProcessStart?: boolean } = {}) {
    this.switchedAt = options.fromProcessStart ? 0 : ownSeconds();
    if (options.fromProcessStart) this.current = "load";
    this.switchTo("other");
  }

  /** Starts or stops charging callbacks and continuations to the stage they were made in. */
  trackCallbacks(on: boolean): void {
    if (on) this.hook.enable();
    else this.hook.disable();
  }

  /** Charges the CPU since the last switch to the stage that ran, and makes `stage` the running one. */
  private switchTo(stage: Stage): Stage {
    const now = ownSeconds();
    this.seconds[this.current] += now - this.switchedAt - this.chargeThreads();
    this.switchedAt = now;
    const was = this.current;
    this.current = stage;
    return was;
  }

  /** Charges the followed threads' CPU since the last reading to their stages; returns it. */
  private chargeThreads(): number {
    let charged = 0;
    for (const [tid, stage] of followedThreads) {
      const seconds = statSeconds(`/proc/self/task/${tid}/stat`, 14);
      const last = this.threadReadings.get(tid);
      this.threadReadings.set(tid, seconds);
      if (last === undefined || seconds < last) continue;
      this.seconds[stage] += seconds - last;
      charged += seconds - last;
    }
    return charged;
  }

  /** Runs `work` as `stage`; a stage inside another is taken out of the outer one. */
  async time<T>(stage: Stage, work: () => Promise<T>): Promise<T> {
    const outer = this.switchTo(stage);
    try {
      return await work();
    } finally {
      this.switchTo(outer);
    }
  }

  timeSync<T>(stage: Stage, work: () => T): T {
    const outer = this.switchTo(stage);
    try {
      return work();
    } finally {
      this.switchTo(outer);
    }
  }

  /**
   * Reads a running child's CPU so far as `stage`'s: call it as the child works (a decoder, on each
   * frame); once it has ended, its last reading stands.
   */
  followChild(stage: Stage, pid: number | undefined): void {
    if (pid === undefined) return;
    const seconds = statSeconds(`/proc/${pid}/stat`, 14);
    if (seconds > 0) this.followed.set(pid, { stage, seconds });
  }

  /** Runs `work`, which starts and waits for its own child processes, and charges their CPU to `stage`. */
  async timeChildren<T>(stage: Stage, work: () => Promise<T>): Promise<T> {
    const before = endedChildrenSeconds();
    try {
      return await this.time(stage, work);
    } finally {
      const used = endedChildrenSeconds() - before;
      this.seconds[stage] += used;
      this.childrenCharged += used;
    }
  }

  /** The seconds by stage so far; children not charged elsewhere are the encoder's (see above). */
  read(): StageSeconds {
    this.switchTo(this.current);
    const seconds = { ...this.seconds };
    let charged = this.childrenCharged;
    for (const child of this.followed.values()) {
      seconds[child.stage] += child.seconds;
      charged += child.seconds;
    }
    const children = endedChildrenSeconds() - this.childrenAtStart;
    seconds.encode += Math.max(0, children - charged);
    return seconds;
  }
}

const running = new AsyncLocalStorage<StageClock>();

/** Runs `work` with `clock` counting the stages of everything it calls. */
export async function withStageClock<T>(clock: StageClock, work: () => Promise<T>): Promise<T> {
  clock.trackCallbacks(true);
  try {
    return await running.run(clock, work);
  } finally {
    clock.trackCallbacks(false);
  }
}

/** The clock of the cleaning in progress, if one is counting. */
export function stageClock(): StageClock | undefined {
  return running.getStore();
}

/** `work` timed as `stage` when a clock is counting; otherwise just `work`. */
export function timed<T>(stage: Stage, work: () => Promise<T>): Promise<T> {
  const clock = running.getStore();
  return clock ? clock.time(stage, work) : work();
}

/** `work`, which starts and waits for its own child processes, timed as `stage` with their CPU. */
export function timedChildren<T>(stage: Stage, work: () => Promise<T>): Promise<T> {
  const clock = running.getStore();
  return clock ? clock.timeChildren(stage, work) : work();
}

export function timedSync<T>(stage: Stage, work: () => T): T {
  const clock = running.getStore();
  return clock ? clock.timeSync(stage, work) : work();
}
