import type { ClipSpec } from "./clips";
import { probeStream } from "./ffmpeg";
import { type FrameContext, ScoreAccumulator, type Scores } from "./metrics";
import { rgbFrames } from "./raw-frames";
import { maskBox } from "./ssim";
import { clipFiles, truthFrames } from "./truth";

export interface Scored {
  scores?: Scores;
  /** Why the output could not be compared frame by frame (wrong size or frame count). */
  problem?: string;
}

/**
 * Scores every output of a clip in one streaming pass: the truth, the input and each output are
 * decoded side by side, frame by frame, so memory holds a few frames per file whatever the length.
 */
export async function scoreOutputs(
  dir: string,
  clip: ClipSpec,
  outputs: Map<string, string>,
): Promise<Map<string, Scored>> {
  const results = new Map<string, Scored>();
  const live = new Map<string, { frames: AsyncGenerator<Uint8Array>; scores: ScoreAccumulator }>();
  for (const [name, file] of outputs) {
    const facts = await probeStream(file);
    if (facts.width !== clip.width || facts.height !== clip.height) {
      results.set(name, { problem: `${facts.width}x${facts.height}, not ${clip.width}x${clip.height}` });
    } else {
      live.set(name, { frames: rgbFrames(file, clip), scores: new ScoreAccumulator() });
    }
  }
  const input = rgbFrames(clipFiles(dir).input, clip);
  let previousClean: Uint8Array | null = null;
  let frames = 0;
  try {
    for await (const truth of truthFrames(dir, clip)) {
      const inputFrame = await input.next();
      if (inputFrame.done) throw new Error(`${clip.name}: the input is shorter than the truth`);
      const context: FrameContext = {
        truth,
        input: inputFrame.value,
        width: clip.width,
        box: truth.masked > 0 ? maskBox(truth.mask, clip.width, clip.height) : null,
        previousClean,
      };
      const next = await Promise.all([...live.values()].map(({ frames }) => frames.next()));
      [...live.entries()].forEach(([name, { scores }], k) => {
        const frame = next[k];
        if (!frame || frame.done) {
          results.set(name, { scores: scores.result(), problem: `ends after ${frames} frames` });
          live.delete(name);
        } else {
          scores.add(frame.value, context);
        }
      });
      previousClean = truth.clean;
      frames++;
    }
    for (const [name, { frames: rest, scores }] of live) {
      const extra = await rest.next();
      results.set(name, {
        scores: scores.result(),
        ...(extra.done ? {} : { problem: `more frames than the ${frames} of the input` }),
      });
    }
  } finally {
    await Promise.all([
      input.return(undefined),
      ...[...live.values()].map(({ frames }) => frames.return(undefined)),
    ]);
  }
  return results;
}
