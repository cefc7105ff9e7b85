import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { type ClipSpec, checkZones } from "./clips";
import { ffmpeg } from "./ffmpeg";
import { overlayGraph } from "./overlays";
import { cameraGraph, footageInput, picturePath, pictureVersion, pictureWithSign } from "./scenes";
import { clipFiles, measureTruth, type Truth } from "./truth";

/** Bumped when the way clips are made changes (pictures are versioned by their own graphs). */
const FOOTAGE_VERSION = 1;

const LOSSLESS = ["-c:v", "libx264", "-preset", "veryfast", "-qp", "0"];
/** The ad as it reaches the service: a high-quality H.264 master with AAC audio. */
const INPUT_ENCODING = ["-c:v", "libx264", "-preset", "medium", "-crf", "16", "-pix_fmt", "yuv420p"];
const INPUT_AUDIO = ["-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart"];

function specHash(clip: ClipSpec): string {
  const picture = "picture" in clip.camera ? clip.camera.picture : undefined;
  return createHash("sha256")
    .update(JSON.stringify({ FOOTAGE_VERSION, clip, picture: picture && pictureVersion(picture) }))
    .digest("hex")
    .slice(0, 16);
}

/**
 * Makes a clip's files in `dir` unless the cache already holds them for this very spec: the clean
 * footage, the same with the overlays (both lossless), the input the methods are given, the footage
 * without its sign (scene-text clips), and the measured truth. clip.json is written last: its presence
 * with the right hash means the folder is complete.
 */
export async function buildClip(
  root: string,
  clip: ClipSpec,
): Promise<{ dir: string; truth: Truth; built: boolean }> {
  const dir = path.join(root, "clips", clip.name);
  const files = clipFiles(dir);
  const hash = specHash(clip);
  if (existsSync(files.spec) && existsSync(files.truth)) {
    const cached = JSON.parse(await readFile(files.spec, "utf8")) as { hash: string };
    if (cached.hash === hash) {
      return { dir, truth: JSON.parse(await readFile(files.truth, "utf8")) as Truth, built: false };
    }
  }
  checkZones(clip);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await render(root, dir, clip);
  const truth = await measureTruth(dir, clip);
  if (truth.unclaimed > 0) throw new Error(`${clip.name}: ${truth.unclaimed} mask pixels outside every zone`);
  await writeFile(files.truth, `${JSON.stringify(truth, null, 2)}\n`);
  await writeFile(files.spec, `${JSON.stringify({ hash, clip }, null, 2)}\n`);
  return { dir, truth, built: true };
}

/**
 * The clip's footage without the overlays, encoded and with audio as its input is: the engine's time
 * on it is the part of its time that every video costs (reading, decoding, encoding), with nothing to
 * fill. Made on first use; a rebuilt clip's folder starts without it.
 */
export async function textFreeInput(dir: string): Promise<string> {
  const files = clipFiles(dir);
  if (!existsSync(files.textFreeInput)) {
    // Renamed into place when complete: a run cut short leaves no half file to be taken as made.
    const partial = `${files.textFreeInput}.partial.mp4`;
    await ffmpeg([
      ...["-i", files.clean, "-i", files.input, "-map", "0:v", "-map", "1:a"],
      ...INPUT_ENCODING,
      ...["-c:a", "copy", "-movflags", "+faststart"],
      partial,
    ]);
    await rename(partial, files.textFreeInput);
  }
  return files.textFreeInput;
}

/**
 * The first second of the clip's input, for the warm engine's warm-up run (bench/warm-engine.ts): the
 * process has then compiled its code and run its models once, as a worker has after its first job.
 */
export async function warmUpInput(dir: string): Promise<string> {
  const files = clipFiles(dir);
  if (!existsSync(files.warmUpInput)) {
    const partial = `${files.warmUpInput}.partial.mp4`;
    await ffmpeg(["-i", files.input, "-t", "1", ...INPUT_ENCODING, "-c:a", "copy", partial]);
    await rename(partial, files.warmUpInput);
  }
  return files.warmUpInput;
}

/** One ffmpeg run films the scene once and writes every file of the clip from it. */
async function render(root: string, dir: string, clip: ClipSpec): Promise<void> {
  const files = clipFiles(dir);
  const inputs: string[] = [];
  const graph: string[] = [];
  const { camera } = clip;
  if (camera.kind === "footage") {
    inputs.push(...footageInput(camera));
  } else if (camera.kind !== "life") {
    const picture = await picturePath(path.join(root, "pictures"), camera.picture);
    if (clip.sceneText) {
      const signed = path.join(dir, "picture-with-sign.png");
      await pictureWithSign(picture, clip.sceneText, signed);
      inputs.push("-i", signed, "-i", picture);
      graph.push(`${cameraGraph(camera, clip, "1:v")}[plain]`);
    } else {
      inputs.push("-i", picture);
    }
  }
  const audioInput = inputs.filter((arg) => arg === "-i").length;
  inputs.push("-f", "lavfi", "-t", String(clip.seconds), "-i", "sine=frequency=330:sample_rate=48000");
  const overlays = clip.overlays.map((overlay, k) =>
    overlayGraph(overlay, clip, {
      input: k === 0 ? "base" : `drawn${k - 1}`,
      output: `drawn${k}`,
      tag: `o${k}`,
    }),
  );
  const drawn = clip.overlays.length > 0 ? `drawn${clip.overlays.length - 1}` : "base";
  graph.push(
    `${cameraGraph(camera, clip, "0:v")},split=2[clean][base]`,
    ...overlays,
    `[${drawn}]split=2[overlaid][input]`,
  );
  await ffmpeg([
    ...inputs,
    ...["-filter_complex", graph.join(";")],
    ...["-map", "[clean]", ...LOSSLESS, files.clean],
    ...["-map", "[overlaid]", ...LOSSLESS, files.overlaid],
    ...["-map", "[input]", "-map", `${audioInput}:a`, ...INPUT_ENCODING, ...INPUT_AUDIO, files.input],
    ...(clip.sceneText ? ["-map", "[plain]", ...LOSSLESS, files.plain] : []),
  ]);
}
