import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ffmpegBinary, ffprobeBinary } from "./process";

/** The oldest ffmpeg the engine works with (README, Quick start). */
const MIN_MAJOR_VERSION = 5;

const INSTALL_HINT =
  "Install ffmpeg 5 or newer (Debian/Ubuntu: `sudo apt-get install ffmpeg`; macOS: `brew install ffmpeg`), " +
  "or point FFMPEG_PATH and FFPROBE_PATH at the binaries.";

/** ffmpeg or ffprobe missing or too old: the message names the binary, the path tried and the fix. */
export class MediaToolsError extends Error {
  override name = "MediaToolsError";
  readonly code = "ffmpeg_unavailable";
}

export interface MediaToolVersions {
  ffmpeg: string;
  ffprobe: string;
}

/** "5.1.9-0+deb12u1" from `ffmpeg version 5.1.9-0+deb12u1 Copyright …`. */
function versionOf(banner: string): string {
  return banner.match(/^\S+ version (\S+)/)?.[1] ?? "unknown";
}

async function checkTool(name: "ffmpeg" | "ffprobe", binary: string, variable: string): Promise<string> {
  let banner: string;
  try {
    banner = (await promisify(execFile)(binary, ["-version"], { timeout: 10_000 })).stdout;
  } catch {
    throw new MediaToolsError(`${name} cannot be run (tried "${binary}", ${variable}). ${INSTALL_HINT}`);
  }
  const version = versionOf(banner);
  // Git builds say "N-12345-g…": no release number to compare, so they are taken as new enough.
  const major = Number(version.match(/^(\d+)\./)?.[1]);
  if (Number.isFinite(major) && major < MIN_MAJOR_VERSION)
    throw new MediaToolsError(`${name} ${version} is too old (tried "${binary}"). ${INSTALL_HINT}`);
  return version;
}

/** Runs `ffmpeg -version` and `ffprobe -version` (FFMPEG_PATH, FFPROBE_PATH): both must work, 5 or newer. */
export async function checkMediaTools(): Promise<MediaToolVersions> {
  const [ffmpeg, ffprobe] = await Promise.all([
    checkTool("ffmpeg", ffmpegBinary(), "FFMPEG_PATH"),
    checkTool("ffprobe", ffprobeBinary(), "FFPROBE_PATH"),
  ]);
  return { ffmpeg, ffprobe };
}
