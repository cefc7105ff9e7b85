import { limitBreach } from "../../contract/video-limits";
import { safeFetch, UrlNotAllowedError } from "../../shared-lib/url-policy";
import { ApiError } from "../lib/errors";
import { ProbeError, probeMp4, type RangeReader, type VideoInfo } from "../media/mp4-probe";
import { MAX_FILE_BYTES } from "../schemas/uploads";
import type { MediaStorage } from "../storage/media-storage";

export interface ProbedVideo extends VideoInfo {
  sizeBytes: number;
}

/**
 * Refuses what the service cannot clean; the probe itself has refused what it cannot read. The
 * resolution limit judges the coded size, which the worker cleans at, not tkhd's display size.
 */
export function checkVideoLimits(video: ProbedVideo): void {
  if (video.sizeBytes > MAX_FILE_BYTES) {
    throw new ApiError("video_too_large", "The video is larger than 2 GB (2,000,000,000 bytes).");
  }
  const breach = limitBreach({
    durationSeconds: video.durationSeconds,
    width: video.codedWidth,
    height: video.codedHeight,
  });
  if (breach) throw new ApiError(breach.code, breach.message);
}

async function probeWith(reader: RangeReader): Promise<ProbedVideo> {
  try {
    return { ...(await probeMp4(reader)), sizeBytes: reader.size };
  } catch (error) {
    if (error instanceof ProbeError) throw new ApiError(error.reason, error.message);
    throw error;
  }
}

/** Reads the metadata of an uploaded file with ranged reads of the stored object. */
export async function probeObject(storage: MediaStorage, key: string, size: number): Promise<ProbedVideo> {
  const reader: RangeReader = {
    size,
    async read(offset, length) {
      try {
        return await storage.read(key, offset, Math.min(length, size - offset));
      } catch {
        throw new ProbeError("unreadable_video", "The uploaded file could not be read.");
      }
    },
  };
  return probeWith(reader);
}

const FIRST_READ_BYTES = 64 * 1024;

/** A hostile server may send more than the range asked for: never buffer past `limit` bytes. */
async function readAtMost(response: Response, limit: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > limit) {
      await reader.cancel();
      throw new ApiError(
        "unreadable_video",
        "The URL's server sent more than the range asked for.",
        "video_url",
      );
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Total size from a 206 answer's Content-Range ("bytes 0-65535/123456"). */
function totalFromContentRange(header: string | null): number | null {
  const match = header?.match(/^bytes \d+-\d+\/(\d+)$/);
  return match?.[1] ? Number(match[1]) : null;
}

/**
 * Reads the metadata of a customer's `video_url` with ranged GETs, each through the address
 * policy (redirects re-checked at every hop). The server must answer range requests (spec).
 */
export async function probeUrl(url: string, local: boolean): Promise<ProbedVideo> {
  const policy = { local };
  const rangeGet = async (offset: number, length: number) => {
    const get = () =>
      safeFetch(url, { headers: { Range: `bytes=${offset}-${offset + length - 1}` } }, policy);
    // A dropped connection is tried once more: a 422 for a network blip is one no client retries.
    const response = await get().catch((error: unknown) => {
      if (error instanceof UrlNotAllowedError) throw error;
      return get();
    });
    if (response.status !== 206) {
      await response.body?.cancel();
      const why =
        response.status === 200
          ? "The URL's server does not answer HTTP range requests."
          : `The URL answered HTTP ${response.status}.`;
      throw new ApiError("unreadable_video", why, "video_url");
    }
    return response;
  };
  try {
    const first = await rangeGet(0, FIRST_READ_BYTES);
    const size = totalFromContentRange(first.headers.get("Content-Range"));
    if (size === null)
      throw new ApiError("unreadable_video", "The URL's answer has no usable Content-Range.", "video_url");
    if (size > MAX_FILE_BYTES)
      throw new ApiError("video_too_large", "The video is larger than 2 GB (2,000,000,000 bytes).");
    // The first bytes hold ftyp and often moov: keep them rather than asking again.
    const head = await readAtMost(first, FIRST_READ_BYTES);
    const reader: RangeReader = {
      size,
      read: async (offset, length) => {
        if (offset + length <= head.length) return head.subarray(offset, offset + length);
        const wanted = Math.min(length, size - offset);
        return readAtMost(await rangeGet(offset, wanted), wanted);
      },
    };
    return await probeWith(reader);
  } catch (error) {
    if (error instanceof UrlNotAllowedError)
      throw new ApiError("url_not_allowed", error.message, "video_url");
    if (error instanceof ApiError) throw error;
    throw new ApiError("unreadable_video", "The video could not be downloaded from the URL.", "video_url");
  }
}
