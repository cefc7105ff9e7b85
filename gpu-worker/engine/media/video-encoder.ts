import { MediaError } from "./errors";
import { ffmpegBinary, runForText } from "./process";

/** The H.264 encoders the engine knows how to drive. */
export type VideoEncoder = "libx264" | "h264_nvenc";
/** GPU_WORKER_ENCODER: auto picks NVENC when it can work, else libx264. */
export type EncoderRequest = "auto" | VideoEncoder;

export interface EncoderChoice {
  encoder: VideoEncoder;
  /** Why, for the start-up log line. */
  reason: string;
}

const REQUESTS: readonly EncoderRequest[] = ["auto", "libx264", "h264_nvenc"];

export function parseEncoderRequest(value: string | undefined): EncoderRequest {
  const request = (value || "auto") as EncoderRequest;
  if (!REQUESTS.includes(request)) {
    throw new Error(`GPU_WORKER_ENCODER must be ${REQUESTS.join(", ")}, not ${value}`);
  }
  return request;
}

/** `ffmpeg -encoders` lists one encoder a line: flags (V for video), name, description. */
function listsNvenc(encodersText: string): boolean {
  return /^\s*V\S*\s+h264_nvenc\s/m.test(encodersText);
}

/**
 * The decision alone, from whether onnxruntime got a CUDA device and, only where the answer turns on
 * it, `ffmpeg -hide_banner -encoders`'s text (`encoders` is called then, so a choice that cannot be
 * NVENC starts no ffmpeg to ask). Debian's and Ubuntu's ffmpeg list h264_nvenc even on machines
 * without an NVIDIA GPU, so the listing alone never picks it.
 */
export async function chooseVideoEncoder(
  encoders: () => Promise<string>,
  cudaUsable: boolean,
  request: EncoderRequest = "auto",
): Promise<EncoderChoice> {
  if (request === "libx264") return { encoder: "libx264", reason: "GPU_WORKER_ENCODER=libx264" };
  if (request === "h264_nvenc") {
    if (!listsNvenc(await encoders())) {
      throw new Error("GPU_WORKER_ENCODER=h264_nvenc, but this ffmpeg has no h264_nvenc encoder");
    }
    return { encoder: "h264_nvenc", reason: "GPU_WORKER_ENCODER=h264_nvenc" };
  }
  if (!cudaUsable) return { encoder: "libx264", reason: "no usable CUDA device" };
  if (!listsNvenc(await encoders()))
    return { encoder: "libx264", reason: "ffmpeg has no h264_nvenc encoder" };
  return { encoder: "h264_nvenc", reason: "ffmpeg has h264_nvenc and CUDA is usable" };
}

/**
 * The codec arguments: x264 at constant quality (see DEFAULT_CRF) with its default tuning. NVENC gets
 * its slowest-but-one preset and constant-quality VBR at the same number; its quality against x264
 * is not measured yet.
 */
export function videoCodecArgs(encoder: VideoEncoder, quality: { crf: number; preset: string }): string[] {
  const codec =
    encoder === "h264_nvenc"
      ? [
          "-c:v",
          "h264_nvenc",
          "-preset",
          "p5",
          "-tune",
          "hq",
          "-rc",
          "vbr",
          "-cq",
          String(quality.crf),
          "-b:v",
          "0",
        ]
      : ["-c:v", "libx264", "-preset", quality.preset, "-crf", String(quality.crf)];
  return [...codec, "-profile:v", "high", "-pix_fmt", "yuv420p"];
}

// Both probes run at most once per process: the answer cannot change while it runs.
let encodersText: Promise<string> | undefined;
let nvencTrial: Promise<string | null> | undefined;

/**
 * A GPU without NVENC units (A100, H100) still lists h264_nvenc, and a container started without the
 * "video" driver capability has no libnvidia-encode: one tiny encode tells. Resolves to why it failed.
 */
function tryNvenc(): Promise<string | null> {
  const args = ["-hide_banner", "-v", "error", "-f", "lavfi", "-i", "color=size=256x256:duration=0.1"];
  return runForText(ffmpegBinary(), [...args, "-c:v", "h264_nvenc", "-f", "null", "-"]).then(
    () => null,
    (error: unknown) => {
      // ffmpeg's last line says why (no NVENC device, no libnvidia-encode, ...).
      const stderr = error instanceof MediaError ? error.stderr : undefined;
      return stderr?.split("\n").at(-1) || String(error);
    },
  );
}

/** The encoder this process uses, from GPU_WORKER_ENCODER and what ffmpeg and the GPU can do. */
export async function selectVideoEncoder(cudaUsable: boolean): Promise<EncoderChoice> {
  const request = parseEncoderRequest(process.env.GPU_WORKER_ENCODER);
  const listEncoders = () => {
    encodersText ??= runForText(ffmpegBinary(), ["-hide_banner", "-encoders"]);
    return encodersText;
  };
  const choice = await chooseVideoEncoder(listEncoders, cudaUsable, request);
  if (choice.encoder !== "h264_nvenc" || request !== "auto") return choice;
  nvencTrial ??= tryNvenc();
  const failure = await nvencTrial;
  return failure ? { encoder: "libx264", reason: `h264_nvenc trial encode failed: ${failure}` } : choice;
}
