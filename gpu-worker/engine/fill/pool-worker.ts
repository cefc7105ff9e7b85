import { parentPort } from "node:worker_threads";
import { ownThreadId } from "../stage-clock";
import type { CropWork } from "./crop";
import { composeSteps, type IndexedFrame } from "./motion-chain";
import type { FoundCrop, FromThread, SearchMessage, SharedFrame, ToThread } from "./pool-messages";
import type { Homography } from "./types";
import { searchWindow, windowSources } from "./window-fill";

/**
 * A fill worker thread (started by pool.ts through pool-thread.mjs): searches the window for the
 * crops of the frames it is given, with the camera motions composed of the steps sent with them. It
 * never loads OpenCV: the crops' distance maps come with the task.
 */
const port = parentPort;
if (!port) throw new Error("pool-worker.ts runs as a worker thread");

/** Each job's window frames that this thread was sent, by video index. */
const jobs = new Map<number, Map<number, IndexedFrame>>();

const post = (message: FromThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/**
 * The motion from the task's centre to frame `to`, composed of the steps the task came with (as the
 * chain composes them); the cleaning thread measured every step of the window before sending it.
 */
function motionTo(message: SearchMessage, steps: Map<number, Homography | null>, to: number) {
  return composeSteps(message.centre, to, (at) => {
    const step = steps.get(at);
    if (step === undefined)
      throw new Error(`the search of frame ${message.centre} was sent no step from frame ${at}`);
    return step ?? undefined;
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
    return {
      ...crop,
      frame,
      source: new Uint8Array(size),
      fill: new Float32Array(size * 3),
      groups: [],
      group: new Uint16Array(size),
      movedSince: new Uint8Array(size),
    };
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
      groups: work.groups.map(({ sources, pooled }) => ({
        sources: sources.map(({ source, weight }) => ({
          index: source.index as number,
          restored: source.textOnly !== undefined && source.mask === source.textOnly,
          motion: source.motion,
          distance: source.distance,
          weight,
          shift: source.shift,
          light: source.light,
        })),
        pooled,
      })),
      group: work.group,
      movedSince: work.movedSince,
      unfilled: find.unfilled,
      movedOn: find.movedOn,
    };
  });
  const transfer = crops.flatMap(
    (crop) =>
      [crop.source.buffer, crop.fill.buffer, crop.group.buffer, crop.movedSince.buffer] as ArrayBuffer[],
  );
  post({ kind: "found", id: message.id, crops }, transfer);
}

/** The searches sent so far, run one after another. */
let searching = Promise.resolve();

const tid = ownThreadId();
if (tid !== undefined) post({ kind: "started", tid });

port.on("message", (message: ToThread) => {
  if (message.kind === "end") {
    jobs.delete(message.job);
    return;
  }
  // One search at a time, in the order sent: the next may already be here while one runs.
  searching = searching.then(() =>
    search(message).catch((error: unknown) =>
      post({
        kind: "failed",
        id: message.id,
        message: error instanceof Error ? error.message : String(error),
      }),
    ),
  );
});
