import { parentPort } from "node:worker_threads";
import { ownThreadId } from "../stage-clock";
import type { CropWork } from "./crop";
import { composeSteps, type IndexedFrame } from "./motion-chain";
import type { FoundCrop, FromThread, SearchMessage, SharedFrame, ToThread } from "./pool-messages";
import { type Homography, homography } from "./types";
import { searchWindow, windowSources } from "./window-fill";

/**
 * A fill worker thread (started by pool.ts through pool-thread.mjs): searches the window for the
 * crops of the frames it is given, asking the cleaning thread for each camera motion. It never loads
 * OpenCV: the crops' distance maps come with the task.
 */
const port = parentPort;
if (!port) throw new Error("pool-worker.ts runs as a worker thread");

/** Each job's window frames that this thread was sent, by video index. */
const jobs = new Map<number, Map<number, IndexedFrame>>();
/** Motion asks waiting for their answer, by task and ask. */
const asks = new Map<string, { resolve: (motion?: Homography) => void; reject: (error: Error) => void }>();
let nextAsk = 0;

const post = (message: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/** A step the task was not sent: the cleaning thread measures it, in its order. */
class UnknownStep extends Error {}

/**
 * The motion from the task's centre to frame `to`: composed here when the task came with every step
 * on the way (as the chain composes them), otherwise asked for.
 */
async function motionTo(message: SearchMessage, steps: Map<number, Homography | null>, to: number) {
  try {
    return await composeSteps(message.centre, to, (at) => {
      const step = steps.get(at);
      if (step === undefined) throw new UnknownStep();
      return step ?? undefined;
    });
  } catch (error) {
    if (!(error instanceof UnknownStep)) throw error;
    return ask(message.id, to);
  }
}

function ask(id: number, to: number): Promise<Homography | undefined> {
  const ask = nextAsk++;
  return new Promise((resolve, reject) => {
    asks.set(`${id}:${ask}`, { resolve, reject });
    post({ kind: "motion", id, ask, to });
  });
}

function framesOf(message: SearchMessage): Map<number, IndexedFrame> {
  let frames = jobs.get(message.job);
  if (!frames) {
    frames = new Map();
    jobs.set(message.job, frames);
  }
  const { width, height } = message;
  for (const shared of message.frames) frames.set(shared.index, asMaskedFrame(shared, width, height));
  // The window only moves on: frames before it are not asked for again.
  const first = message.window[0] ?? message.centre;
  for (const index of frames.keys()) if (index < first) frames.delete(index);
  return frames;
}

function asMaskedFrame({ index, data, mask, behind, textOnly }: SharedFrame, width: number, height: number) {
  return {
    index,
    frame: { width, height, data },
    mask,
    ...(behind ? { behind } : {}),
    ...(textOnly ? { textOnly } : {}),
  };
}

async function search(message: SearchMessage): Promise<void> {
  const frames = framesOf(message);
  const window = message.window.map((index) => {
    const frame = frames.get(index);
    if (!frame) throw new Error(`frame ${index} of job ${message.job} was never sent`);
    return frame;
  });
  const center = message.window.indexOf(message.centre);
  const { frame } = window[center] as IndexedFrame;
  const works: CropWork[] = message.crops.map((crop) => {
    const size = crop.rect.width * crop.rect.height;
    return { ...crop, frame, source: new Uint8Array(size), fill: new Float32Array(size * 3) };
  });
  const steps = new Map(message.steps);
  const sourcesAt = windowSources(window, center, (position) =>
    motionTo(message, steps, (window[position] as IndexedFrame).index),
  );
  const finds = await searchWindow(works, sourcesAt, message.search);
  const crops: FoundCrop[] = finds.map((find, k) => {
    const work = works[k] as CropWork;
    return {
      source: work.source,
      fill: work.fill,
      aligned: find.aligned.map(({ source, weight }) => ({
        index: source.index as number,
        restored: source.textOnly !== undefined && source.mask === source.textOnly,
        motion: source.motion,
        distance: source.distance,
        weight,
        shift: source.shift,
      })),
      unfilled: find.unfilled,
      movedOn: find.movedOn,
    };
  });
  const transfer = crops.flatMap((crop) => [crop.source.buffer, crop.fill.buffer] as ArrayBuffer[]);
  post({ kind: "found", id: message.id, crops }, transfer);
}

const tid = ownThreadId();
if (tid !== undefined) post({ kind: "started", tid });

port.on("message", (message: ToThread) => {
  if (message.kind === "end") {
    jobs.delete(message.job);
    return;
  }
  if (message.kind === "motion") {
    const key = `${message.id}:${message.ask}`;
    const waiting = asks.get(key);
    asks.delete(key);
    if (message.canceled) waiting?.reject(new Error("canceled"));
    else waiting?.resolve(message.motion && homography(message.motion));
    return;
  }
  search(message).catch((error: unknown) =>
    post({ kind: "failed", id: message.id, message: error instanceof Error ? error.message : String(error) }),
  );
});
