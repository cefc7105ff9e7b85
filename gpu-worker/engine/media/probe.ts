import { stat } from "node:fs/promises";
import { startsLikeVideoContainer } from "./container-sniff";
import { abortError, MediaError } from "./errors";
import { customerFileInput, ffprobeBinary, runForText } from "./process";

export { MediaError } from "./errors";

export interface VideoProbe {
  /** Index of the video stream in the file (the first one that is not cover art). */
  streamIndex: number;
  /** Coded frame size, before rotation. */
  width: number;
  height: number;
  /** Clockwise turn that displays the frames upright (0 for most videos, 90 for portrait phone video). */
  rotation: 0 | 90 | 180 | 270;
  frameCount: number;
  durationSeconds: number;
  /**
   * The longest of the container's duration, every stream's and the span of the video frames'
   * timestamps: how long the file really plays, whatever one header says.
   */
  longestSeconds: number;
  avgFps: number;
  /** The video stream's time base, as ffprobe writes it ("1/12800"). */
  timeBase: string;
  /** From the first frame's pts to where the last frame stops showing, in time base units. */
  spanPts: number;
  pixFmt: string;
  codec: string;
  hasAudio: boolean;
  color: { primaries?: string; transfer?: string; space?: string; range?: string };
  variableFrameRate: boolean;
  /** Whether frames are stored out of display order (B-frames). */
  reordersFrames: boolean;
}

interface FfprobeStream {
  index: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  has_b_frames?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  time_base?: string;
  duration?: string;
  duration_ts?: number;
  color_primaries?: string;
  color_transfer?: string;
  color_space?: string;
  color_range?: string;
  disposition?: { attached_pic?: number };
  side_data_list?: Array<{ rotation?: number }>;
}

interface FfprobeReport {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string };
}

/** Formats ffmpeg reads as "video" that are no video: single images and text shown as ANSI art. */
const STILL_FORMATS = /^(image2|tty|.*_pipe)$/;
/** Frame durations may differ by rounding to the time base and by 1% before the rate counts as variable. */
const FRAME_DURATION_TOLERANCE = 0.01;

/** Reads what the engine needs to know about a video file with ffprobe. */
export async function probeVideo(path: string, signal?: AbortSignal): Promise<VideoProbe> {
  if (signal?.aborted) throw abortError();
  const { size } = await stat(path);
  if (size === 0) throw new MediaError("unreadable_video", "The file is empty.");
  // Both ffprobe runs start at once: each spends most of its time starting up.
  const packets = readVideoPackets(path, signal);
  // Waited for whichever way the report goes: no ffprobe outlives the call.
  const packetsDone = packets.catch(() => undefined);
  try {
    return await describeVideo(await readReport(path, signal), packets);
  } finally {
    await packetsDone;
  }
}

/** The probe from ffprobe's report and its list of video packets, or why the file cannot be cleaned. */
async function describeVideo(report: FfprobeReport, packets: Promise<string>): Promise<VideoProbe> {
  const video = report.streams?.find(
    (stream) => stream.codec_type === "video" && !stream.disposition?.attached_pic,
  );
  if (!video || STILL_FORMATS.test(report.format?.format_name ?? "")) {
    throw new MediaError("unsupported_format", "The file has no video stream.");
  }
  if (!video.width || !video.height || !video.codec_name || !video.time_base) {
    throw new MediaError("unreadable_video", "The video stream's size or codec cannot be read.");
  }
  const frames = frameTimes(await packets, video.index);
  const pts = frames.map((frame) => frame.pts);
  if (pts.length === 0) throw new MediaError("unreadable_video", "The video has no frames.");
  const durationSeconds = Number(video.duration ?? report.format?.duration ?? Number.NaN);
  const { num, den } = parseRational(video.time_base);
  const frameSpan = den > 0 ? (((pts.at(-1) as number) - (pts[0] as number)) * num) / den : 0;
  const durations = [report.format?.duration, ...(report.streams ?? []).map((stream) => stream.duration)];
  return {
    streamIndex: video.index,
    width: video.width,
    height: video.height,
    rotation: clockwiseRotation(video.side_data_list),
    frameCount: pts.length,
    durationSeconds,
    longestSeconds: Math.max(frameSpan, ...durations.map(Number).filter(Number.isFinite)),
    avgFps: rateOf(video.avg_frame_rate) || rateOf(video.r_frame_rate) || pts.length / durationSeconds,
    timeBase: video.time_base,
    spanPts: videoSpan(video.duration_ts, frames),
    pixFmt: video.pix_fmt ?? "unknown",
    codec: video.codec_name,
    hasAudio: report.streams?.some((stream) => stream.codec_type === "audio") ?? false,
    color: {
      primaries: known(video.color_primaries),
      transfer: known(video.color_transfer),
      space: known(video.color_space),
      range: known(video.color_range),
    },
    variableFrameRate: hasVariableFrameDurations(pts),
    reordersFrames: (video.has_b_frames ?? 0) > 0,
  };
}

async function readReport(path: string, signal?: AbortSignal): Promise<FfprobeReport> {
  try {
    const json = await runForText(
      ffprobeBinary(),
      ["-v", "error", "-of", "json", "-show_format", "-show_streams", ...customerFileInput(path)],
      signal,
    );
    return JSON.parse(json) as FfprobeReport;
  } catch (error) {
    if (!(error instanceof MediaError)) throw error;
    // ffprobe says "Invalid data" both for a damaged video and for a file that is no video at all.
    throw (await startsLikeVideoContainer(path))
      ? new MediaError("unreadable_video", "The video is damaged or incomplete.", error.stderr)
      : new MediaError("unsupported_format", "The file is not a video format we can read.", error.stderr);
  }
}

/** Every video stream's packets, a line each: stream index, pts, duration, flags. */
async function readVideoPackets(path: string, signal?: AbortSignal): Promise<string> {
  try {
    const entries = "packet=stream_index,pts,duration,flags";
    const args = ["-v", "error", "-select_streams", "v", "-show_entries", entries];
    return await runForText(ffprobeBinary(), [...args, "-of", "csv=p=0", ...customerFileInput(path)], signal);
  } catch (error) {
    if (!(error instanceof MediaError)) throw error;
    throw new MediaError("unreadable_video", "The video's frames cannot be read.", error.stderr);
  }
}

interface FrameTime {
  pts: number;
  /** As the container states it (0 where it states none). */
  duration: number;
}

/** Timestamps (in time base units) of the frames the decoder will output, in presentation order. */
function frameTimes(packetsCsv: string, streamIndex: number): FrameTime[] {
  const stream = String(streamIndex);
  // Packets flagged D (discard) lie outside the edit list: the decoder drops them.
  return packetsCsv
    .split("\n")
    .map((line) => line.split(","))
    .filter(([index, pts, , flags]) => index === stream && pts && pts !== "N/A" && !flags?.includes("D"))
    .map(([, pts, duration]) => ({ pts: Number(pts), duration: Number(duration) || 0 }))
    .sort((a, b) => a.pts - b.pts);
}

/**
 * How long the video lasts in time base units, its last frame's own duration included: the stream's
 * stated duration (MP4 and MOV state it exactly), else the last frame's packet duration or, without
 * one, the gap before it.
 */
function videoSpan(statedDuration: number | undefined, frames: FrameTime[]): number {
  if (statedDuration && statedDuration > 0) return statedDuration;
  const first = frames[0] as FrameTime;
  const last = frames.at(-1) as FrameTime;
  const gapBefore = frames.length > 1 ? last.pts - (frames.at(-2) as FrameTime).pts : 0;
  return last.pts + (last.duration || gapBefore) - first.pts;
}

/** Whether some frame lasts longer or shorter than the average, beyond rounding to the time base. */
function hasVariableFrameDurations(pts: number[]): boolean {
  if (pts.length < 3) return false;
  const average = ((pts.at(-1) as number) - (pts[0] as number)) / (pts.length - 1);
  const tolerance = Math.max(1, average * FRAME_DURATION_TOLERANCE);
  return pts.some(
    (value, index) => index > 0 && Math.abs(value - (pts[index - 1] as number) - average) > tolerance,
  );
}

/** ffprobe reports the display matrix's rotation counter-clockwise, in degrees. */
function clockwiseRotation(sideData: FfprobeStream["side_data_list"]): VideoProbe["rotation"] {
  const counterClockwise = sideData?.find((entry) => entry.rotation !== undefined)?.rotation ?? 0;
  const quarterTurns = (((Math.round(-counterClockwise / 90) % 4) + 4) % 4) as 0 | 1 | 2 | 3;
  return ([0, 90, 180, 270] as const)[quarterTurns];
}

export function parseRational(text: string): { num: number; den: number } {
  const [num, den] = text.split("/").map(Number);
  return { num: num ?? 0, den: den ?? 1 };
}

function rateOf(text: string | undefined): number {
  if (!text) return 0;
  const { num, den } = parseRational(text);
  return den > 0 ? num / den : 0;
}

function known(value: string | undefined): string | undefined {
  return value && value !== "unknown" ? value : undefined;
}
