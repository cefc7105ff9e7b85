import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { CropWork } from "./crop";
import type { IndexedFrame } from "./motion-chain";
import type { FromThread, MotionAnswer, SearchMessage, SharedFrame, ToThread } from "./pool-messages";
import type { Homography } from "./types";
import type { WindowFind, WindowSearch } from "./window-fill";

/**
 * How many worker threads search the window for the frames ahead of the one being written (README,
 * Configuration: FILL_THREADS). FILL_THREADS counts the threads that fill, the cleaning thread (which
 * finishes each frame in order) included: 2 is one worker thread beside it, 1 or 0 none (the search
 * runs in the cleaning thread, as a frame-by-frame pass). Unset: one worker thread per core, less
 * one for the cleaning thread and ffmpeg's encoder, and at least one.
 */
export function fillPoolSize(setting = process.env.FILL_THREADS, cores = availableParallelism()): number {
  if (setting === undefined || setting === "") return Math.max(1, cores - 1);
  const threads = Number(setting);
  if (!Number.isInteger(threads) || threads < 0) {
    throw new Error(`FILL_THREADS must be a whole number of threads, not ${setting}`);
  }
  return Math.max(0, threads - 1);
}

/** One frame's window search, handed to a worker thread. */
export interface SearchTask {
  /** The frame being filled (its video index). */
  centre: number;
  /** The window around it: consecutive frames, their pictures and masks in SharedArrayBuffers. */
  window: IndexedFrame[];
  works: CropWork[];
  search: WindowSearch;
  /** The camera motion from the centre to frame `to` (video index), measured by the caller. */
  motion: (to: number) => Promise<Homography | undefined>;
}

interface Running {
  thread: Thread;
  task: SearchTask;
  resolve: (finds: WindowFind[]) => void;
  reject: (error: unknown) => void;
  canceled: boolean;
  /** The thread's motion asks not answered yet. */
  asks: Set<number>;
}

interface Thread {
  worker: Worker;
  /** Frames each job has sent this thread. */
  sent: Map<number, Set<number>>;
  tasks: number;
}

const ENTRY = new URL("./pool-worker.ts", import.meta.url).href;
const BOOT = new URL("./pool-thread.mjs", import.meta.url);

/**
 * Worker threads that search the window (window-fill.ts) for frames ahead of the one the cleaning
 * thread finishes. A thread that dies or throws fails the searches it held, and so their jobs,
 * with its error; it is replaced for the next ones. The worker process keeps one pool across jobs;
 * the command line opens one per call.
 */
export class FillPool {
  private readonly threads: Thread[] = [];
  private readonly running = new Map<number, Running>();
  private nextId = 0;
  private nextJob = 0;
  private closed = false;

  constructor(readonly size: number) {
    if (size < 1) throw new RangeError("a fill pool has at least one thread");
    for (let k = 0; k < size; k += 1) this.threads.push(this.spawn());
  }

  /** The threads' ids now (a dead one's replacement has a new id). */
  threadIds(): number[] {
    return this.threads.map((thread) => thread.worker.threadId);
  }

  /** Stops thread `threadId` as if it had crashed (for the tests of a crash mid-job). */
  async crash(threadId: number): Promise<void> {
    await this.threads.find((thread) => thread.worker.threadId === threadId)?.worker.terminate();
  }

  /** A job's searches: frames are sent to each thread once per job, and forgotten when it ends. */
  job(signal?: AbortSignal): FillJob {
    return new FillJob(this, this.nextJob++, signal);
  }

  /** Searches one frame's window in the least busy thread. */
  search(job: number, task: SearchTask): { done: Promise<WindowFind[]>; cancel: (reason: unknown) => void } {
    if (this.closed) throw new Error("the fill pool is closed");
    const thread = this.threads.reduce((least, thread) => (thread.tasks < least.tasks ? thread : least));
    const id = this.nextId++;
    let running: Running | undefined;
    const done = new Promise<WindowFind[]>((resolve, reject) => {
      running = { thread, task, resolve, reject, canceled: false, asks: new Set() };
    });
    const entry = running as Running;
    this.running.set(id, entry);
    thread.tasks += 1;
    const sent = thread.sent.get(job) ?? new Set<number>();
    thread.sent.set(job, sent);
    const frames: SharedFrame[] = [];
    for (const frame of task.window) {
      if (sent.has(frame.index)) continue;
      sent.add(frame.index);
      frames.push({
        index: frame.index,
        data: frame.frame.data,
        mask: frame.mask,
        ...(frame.behind ? { behind: frame.behind } : {}),
        ...(frame.textOnly ? { textOnly: frame.textOnly } : {}),
      });
    }
    const first = task.window[0]?.index ?? task.centre;
    for (const index of sent) if (index < first) sent.delete(index);
    const { width, height } = task.window[0]?.frame ?? { width: 0, height: 0 };
    const message: SearchMessage = {
      kind: "search",
      id,
      job,
      width,
      height,
      frames,
      window: task.window.map((frame) => frame.index),
      centre: task.centre,
      crops: task.works.map(({ rect, masked, maskedPixels, inside, outside }) => ({
        rect,
        masked,
        maskedPixels,
        inside,
        outside,
      })),
      search: task.search,
    };
    thread.worker.postMessage(message satisfies ToThread);
    // The thread's answer is still awaited (and dropped): its motion asks are answered "canceled",
    // those waiting for their motion too (it may never come: the frames before it were given up).
    const cancel = (reason: unknown) => {
      if (!this.running.has(id)) return;
      entry.canceled = true;
      entry.reject(reason);
      for (const ask of entry.asks) answer(thread, id, ask, { canceled: true });
      entry.asks.clear();
    };
    return { done, cancel };
  }

  /** Tells every thread that the job ended, so it lets go of its frames. */
  endJob(job: number): void {
    for (const thread of this.threads) {
      if (thread.sent.delete(job)) thread.worker.postMessage({ kind: "end", job } satisfies ToThread);
    }
  }

  /** Stops the threads; searches still running fail. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private spawn(): Thread {
    const worker = new Worker(BOOT, { workerData: { entry: ENTRY } });
    const thread: Thread = { worker, sent: new Map(), tasks: 0 };
    worker.on("message", (message: FromThread) => this.heard(thread, message));
    worker.on("error", (error) => this.lost(thread, error));
    worker.on("exit", (code) => this.lost(thread, new Error(`A fill thread stopped (exit code ${code}).`)));
    // An idle pool does not keep the process alive (the worker process keeps it for its own reasons).
    worker.unref();
    return thread;
  }

  private heard(thread: Thread, message: FromThread): void {
    const entry = this.running.get(message.id);
    if (!entry) return;
    if (message.kind === "motion") {
      const answer = (reply: Omit<MotionAnswer, "kind" | "id" | "ask">) =>
        thread.worker.postMessage({
          kind: "motion",
          id: message.id,
          ask: message.ask,
          ...reply,
        } satisfies ToThread);
      if (entry.canceled) {
        answer({ canceled: true });
        return;
      }
      entry.task.motion(message.to).then(
        (motion) => answer(motion ? { motion } : {}),
        () => answer({ canceled: true }),
      );
      return;
    }
    this.running.delete(message.id);
    thread.tasks -= 1;
    if (message.kind === "failed") entry.reject(new Error(`The fill's search failed: ${message.message}`));
    else entry.resolve(message.crops.map((crop, k) => foundInWindow(entry.task, k, crop)));
  }

  /** A thread died: its searches fail, and a new thread takes its place unless the pool is closing. */
  private lost(thread: Thread, error: Error): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    for (const [id, entry] of this.running) {
      if (entry.thread !== thread) continue;
      this.running.delete(id);
      entry.reject(error);
    }
    if (this.closed) this.threads.splice(at, 1);
    else this.threads[at] = this.spawn();
  }
}

function answer(thread: Thread, id: number, ask: number, reply: Omit<MotionAnswer, "kind" | "id" | "ask">) {
  thread.worker.postMessage({ kind: "motion", id, ask, ...reply } satisfies ToThread);
}

/** A thread's find for crop `k`, written into the task's crop and its sources taken from the task's window. */
function foundInWindow(task: SearchTask, k: number, crop: FoundCropOf): WindowFind {
  const work = task.works[k] as CropWork;
  work.source.set(crop.source);
  work.fill.set(crop.fill);
  const byIndex = new Map(task.window.map((frame) => [frame.index, frame]));
  return {
    aligned: crop.aligned.map(({ index, restored, motion, distance, weight }) => {
      const frame = byIndex.get(index) as IndexedFrame;
      return {
        source: { ...frame, mask: restored ? (frame.textOnly as Uint8Array) : frame.mask, motion, distance },
        weight,
      };
    }),
    unfilled: crop.unfilled,
    movedOn: crop.movedOn,
  };
}

type FoundCropOf = Extract<FromThread, { kind: "found" }>["crops"][number];

/** One job's use of the pool: its searches fail when its signal aborts, and end() lets go of its frames. */
export class FillJob {
  private readonly pending = new Set<(reason: unknown) => void>();

  constructor(
    private readonly pool: FillPool,
    private readonly id: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** How many threads search at once. */
  get threads(): number {
    return this.pool.size;
  }

  async search(task: SearchTask): Promise<WindowFind[]> {
    this.signal?.throwIfAborted();
    const { done, cancel } = this.pool.search(this.id, task);
    const onAbort = () => cancel(this.signal?.reason);
    this.signal?.addEventListener("abort", onAbort, { once: true });
    this.pending.add(cancel);
    try {
      return await done;
    } finally {
      this.pending.delete(cancel);
      this.signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Cancels the searches still running and lets the threads forget the job's frames. */
  end(): void {
    for (const cancel of this.pending) cancel(new Error("The job ended before the fill's search did."));
    this.pool.endJob(this.id);
  }
}
