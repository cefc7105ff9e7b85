import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { followThread, timedSync } from "../stage-clock";
import type { CropWork } from "./crop";
import type { IndexedFrame } from "./motion-chain";
import type { FromThread, SearchMessage, SharedAligned, SharedFrame, ToThread } from "./pool-messages";
import { fillSource, weightedSource } from "./temporal";
import { type Homography, homography } from "./types";
import type { WindowFind, WindowSearch } from "./window-fill";

/**
 * Worker threads by default at most: from about 3 a job is bound by its cleaning thread (README,
 * "Threads"), and each thread holds its own frames and heap (at 1080p, 15 of them would pass the
 * 1.5 GB a job may take). A host running several slots sets FILL_THREADS to share more.
 */
const MAX_DEFAULT_THREADS = 4;

/**
 * How many worker threads search the window for the frames ahead of the one being written (README,
 * Configuration: FILL_THREADS). FILL_THREADS counts the threads that fill, the cleaning thread (which
 * finishes each frame in order) included: 2 is one worker thread beside it, 1 or 0 none (the search
 * runs in the cleaning thread, as a frame-by-frame pass). Unset: one worker thread per core, less
 * one for the cleaning thread and ffmpeg's encoder, at least one and at most MAX_DEFAULT_THREADS.
 */
export function fillPoolSize(setting = process.env.FILL_THREADS, cores = availableParallelism()): number {
  if (setting === undefined || setting === "") return Math.max(1, Math.min(MAX_DEFAULT_THREADS, cores - 1));
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
  /** Every step of the motion chain within the window, by video index (null: not trusted). */
  steps: Array<[number, Homography | null]>;
  /** The same search in the calling thread, for when that thread would otherwise wait. */
  here: () => Promise<WindowFind[]>;
}

/** A search waiting for a thread, or sent to one. */
interface Entry {
  job: number;
  task: SearchTask;
  resolve: (finds: WindowFind[]) => void;
  reject: (error: unknown) => void;
  /** Given up: the thread's answer, when one comes, is dropped. */
  canceled: boolean;
}

interface Thread {
  worker: Worker;
  /** Frames each job has sent this thread. */
  sent: Map<number, Set<number>>;
  /** Searches sent to it and not answered yet. */
  load: number;
  /** Stops the stage clock counting the thread's CPU as the fill's (once it said who it is). */
  unfollow?: () => void;
}

/**
 * Searches a thread holds at once: the one it runs and the next, which it starts as soon as the
 * first is done. With one, a thread that finished waited for the cleaning thread to hear it (often
 * in the middle of a frame's seam solve) before it got the next: on real-city it stood idle for
 * half the cleaning pass.
 */
const SENT_AHEAD = 2;

const ENTRY = new URL("./pool-worker.ts", import.meta.url).href;
const BOOT = new URL("./pool-thread.mjs", import.meta.url);

/**
 * Worker threads that search the window (window-fill.ts) for frames ahead of the one the cleaning
 * thread finishes; each thread runs one search at a time and holds the next (SENT_AHEAD), searches
 * wait in order for room in a thread, and the cleaning thread takes waiting ones back rather than
 * wait itself (FillJob.helpUntil). A thread
 * that dies or throws fails the searches it held, and so their jobs, with its error; it is replaced
 * for the next ones. The worker process keeps one pool across jobs; the command line opens one per
 * call.
 */
export class FillPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Entry[] = [];
  /** Searches sent to a thread, by their id there. */
  private readonly running = new Map<number, { entry: Entry; thread: Thread }>();
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

  /** Queues one frame's window search for the next free thread. */
  search(job: number, task: SearchTask): { done: Promise<WindowFind[]>; cancel: (reason: unknown) => void } {
    if (this.closed) throw new Error("the fill pool is closed");
    let entry: Entry | undefined;
    const done = new Promise<WindowFind[]>((resolve, reject) => {
      entry = { job, task, resolve, reject, canceled: false };
    });
    const queued = entry as Entry;
    this.queue.push(queued);
    this.pump();
    // A search sent to a thread runs to its end there; its answer is dropped.
    const cancel = (reason: unknown) => {
      if (queued.canceled) return;
      queued.canceled = true;
      queued.reject(reason);
      const waiting = this.queue.indexOf(queued);
      if (waiting >= 0) this.queue.splice(waiting, 1);
    };
    return { done, cancel };
  }

  /** Takes back job `job`'s first waiting search (nearest frame first), if one waits. */
  takeBack(job: number): Entry | undefined {
    let first: Entry | undefined;
    for (const entry of this.queue) {
      if (entry.job === job && (!first || entry.task.centre < first.task.centre)) first = entry;
    }
    if (first) this.queue.splice(this.queue.indexOf(first), 1);
    return first;
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

  /** Sends waiting searches to free threads. */
  private pump(): void {
    for (const thread of this.threads) {
      while (thread.load < SENT_AHEAD) {
        const entry = this.queue.shift();
        if (!entry) return;
        this.send(entry, thread);
      }
    }
  }

  private send(entry: Entry, thread: Thread): void {
    const id = this.nextId++;
    const { job, task } = entry;
    thread.load += 1;
    this.running.set(id, { entry, thread });
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
    // The thread forgets the frames before the window too (pool-worker.ts).
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
      steps: task.steps,
      crops: task.works.map(({ rect, masked, margin, maskedPixels, inside, outside }) => ({
        rect,
        masked,
        margin,
        maskedPixels,
        inside,
        outside,
      })),
      search: task.search,
    };
    thread.worker.postMessage(message satisfies ToThread);
  }

  private spawn(): Thread {
    // Made as fill, so that handling its messages counts as fill (stage-clock.ts).
    const worker = timedSync("fill", () => new Worker(BOOT, { workerData: { entry: ENTRY } }));
    const thread: Thread = { worker, sent: new Map(), load: 0 };
    worker.on("message", (message: FromThread) => this.heard(thread, message));
    worker.on("error", (error) => this.lost(thread, error));
    worker.on("exit", (code) => this.lost(thread, new Error(`A fill thread stopped (exit code ${code}).`)));
    // An idle pool does not keep the process alive (the worker process keeps it for its own reasons).
    worker.unref();
    return thread;
  }

  private heard(thread: Thread, message: FromThread): void {
    if (message.kind === "started") {
      thread.unfollow = followThread(message.tid, "fill");
      return;
    }
    const entry = this.running.get(message.id)?.entry;
    if (!entry) return;
    this.running.delete(message.id);
    thread.load -= 1;
    if (message.kind === "failed") entry.reject(new Error(`The fill's search failed: ${message.message}`));
    else entry.resolve(message.crops.map((crop, k) => foundInWindow(entry.task, k, crop)));
    this.pump();
  }

  /** A thread died: its search fails, and a new thread takes its place unless the pool is closing. */
  private lost(thread: Thread, error: Error): void {
    const at = this.threads.indexOf(thread);
    if (at < 0) return;
    thread.unfollow?.();
    for (const [id, { entry, thread: holder }] of this.running) {
      if (holder !== thread) continue;
      this.running.delete(id);
      entry.canceled = true;
      entry.reject(error);
    }
    if (this.closed) {
      this.threads.splice(at, 1);
      return;
    }
    this.threads[at] = this.spawn();
    this.pump();
  }
}

/** A thread's find for crop `k`, written into the task's crop, its groups' sources taken from the task's window. */
function foundInWindow(task: SearchTask, k: number, crop: FoundCropOf): WindowFind {
  const work = task.works[k] as CropWork;
  work.source.set(crop.source);
  work.fill.set(crop.fill);
  work.group.set(crop.group);
  work.movedSince.set(crop.movedSince);
  const byIndex = new Map(task.window.map((frame) => [frame.index, frame]));
  const sourceOf = ({ index, restored, motion, distance, weight, shift, light }: SharedAligned) => {
    const frame = byIndex.get(index) as IndexedFrame;
    const mask = restored ? (frame.textOnly as Uint8Array) : frame.mask;
    return weightedSource(fillSource(frame, homography(motion), distance, mask, shift, light), weight);
  };
  work.groups.push(...crop.groups.map(({ sources, pooled }) => ({ sources: sources.map(sourceOf), pooled })));
  return { unfilled: crop.unfilled, movedOn: crop.movedOn };
}

type FoundCropOf = Extract<FromThread, { kind: "found" }>["crops"][number];

/**
 * One job's use of the pool: its searches fail when its signal aborts, and end() lets go of its
 * frames. While the cleaning thread waits for a frame's search, it runs the job's waiting searches
 * itself (helpUntil): the frame's own first, when no thread took it yet.
 */
export class FillJob {
  private readonly pending = new Set<(reason: unknown) => void>();
  /** Wakes helpUntil when a search of the job starts waiting for a thread. */
  private wake?: () => void;
  private readonly onAbort = () => this.cancelAll(this.signal?.reason);

  constructor(
    private readonly pool: FillPool,
    private readonly id: number,
    private readonly signal?: AbortSignal,
  ) {
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** How many threads search at once. */
  get threads(): number {
    return this.pool.size;
  }

  async search(task: SearchTask): Promise<WindowFind[]> {
    this.signal?.throwIfAborted();
    const { done, cancel } = this.pool.search(this.id, task);
    this.pending.add(cancel);
    this.wake?.();
    try {
      return await done;
    } finally {
      this.pending.delete(cancel);
    }
  }

  /**
   * Waits for `wanted`, running the job's searches still waiting for a thread here in the
   * meantime, nearest frame first (the frame's own, when no thread took it yet).
   */
  async helpUntil<T>(wanted: Promise<T>): Promise<T> {
    let settled = false;
    const over = wanted.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    while (!settled) {
      const queued = new Promise<void>((wake) => {
        this.wake = wake;
      });
      const entry = this.pool.takeBack(this.id);
      const here = entry?.task.here();
      here?.then(entry?.resolve, entry?.reject);
      await Promise.race([over, queued, ...(here ? [here.catch(() => undefined)] : [])]);
    }
    this.wake = undefined;
    return wanted;
  }

  /** Cancels the searches still running and lets the threads forget the job's frames. */
  end(): void {
    this.signal?.removeEventListener("abort", this.onAbort);
    this.cancelAll(new Error("The job ended before the fill's search did."));
    this.pool.endJob(this.id);
  }

  private cancelAll(reason: unknown): void {
    for (const cancel of this.pending) cancel(reason);
  }
}
