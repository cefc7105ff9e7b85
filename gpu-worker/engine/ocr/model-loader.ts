import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import path from "node:path";
import { InferenceSession } from "onnxruntime-node";
import type { ExecutionProvider } from "./types";

/** One file of models/models.json: where it comes from and what it must hash to. */
export interface ModelFile {
  name: string;
  role: "detection" | "recognition" | "dictionary";
  package: string;
  version: string;
  path: string;
  licence: string;
  sha256: string;
  inputs?: TensorSpec[];
  outputs?: TensorSpec[];
}

export interface TensorSpec {
  name: string;
  type: string;
  shape: Array<number | string>;
}

export interface OpenedModel {
  entry: ModelFile;
  session: InferenceSession;
  inputName: string;
  outputName: string;
}

export interface OpenedModels {
  models: OpenedModel[];
  provider: ExecutionProvider;
  cpuReason?: string;
}

export interface OpenModelsOptions {
  provider?: "auto" | ExecutionProvider;
  /** Intra-op threads per model; TEXT_MODEL_THREADS by default. */
  threads?: number;
  /** Where each entry's file is; the installed npm package by default. */
  resolvePath?: (entry: ModelFile) => string;
}

export class ModelFileError extends Error {
  override name = "ModelFileError";
}

const require = createRequire(import.meta.url);
const MANIFEST_URL = new URL("../../../models/models.json", import.meta.url);

export async function readModelManifest(url: URL = MANIFEST_URL): Promise<ModelFile[]> {
  const manifest = JSON.parse(await readFile(url, "utf8")) as { models: ModelFile[] };
  return manifest.models;
}

export function findModel(manifest: ModelFile[], name: string): ModelFile {
  const entry = manifest.find((model) => model.name === name);
  if (!entry) throw new ModelFileError(`models/models.json has no entry named ${name}`);
  return entry;
}

/**
 * The file inside the installed package. The package's "exports" hides its assets (and its package.json) from
 * require.resolve, so this walks the resolver's own node_modules search path for the package folder instead.
 */
export function resolveModelPath(entry: ModelFile): string {
  for (const dir of require.resolve.paths(entry.package) ?? []) {
    const packageDir = path.join(dir, entry.package);
    const packageJsonPath = path.join(packageDir, "package.json");
    if (!existsSync(packageJsonPath)) continue;
    const { version } = JSON.parse(readFileSync(packageJsonPath, "utf8")) as { version: string };
    if (version !== entry.version) {
      throw new ModelFileError(
        `${entry.name}: ${entry.package}@${version} is installed, models/models.json lists ${entry.version}`,
      );
    }
    return path.join(packageDir, entry.path);
  }
  throw new ModelFileError(`${entry.name}: npm package ${entry.package} is not installed (run npm ci)`);
}

/** The file's bytes, refused unless they hash to the manifest's sha256; sessions open these very bytes. */
export async function loadModelBytes(
  entry: ModelFile,
  filePath = resolveModelPath(entry),
): Promise<Uint8Array> {
  const bytes = await readFile(filePath);
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== entry.sha256) {
    throw new ModelFileError(
      `${entry.name}: sha256 of ${filePath} is ${actual} but models/models.json expects ${entry.sha256}; ` +
        "refusing to load it",
    );
  }
  return bytes;
}

/**
 * Intra-op threads for the text models. A second thread buys little wall time and costs much CPU,
 * which the fill's threads and x264 want: the detector on this 2-core machine, 10 calls each, took
 * 61 to 67 ms a call on a whole 640x480 frame with one thread (61 to 68 ms CPU) and 51 to 59 ms with
 * two (88 to 99 ms CPU), and on a 416x160 crop (most of its calls) 10.0 to 10.5 ms with one and 11.9
 * to 12.8 ms with two (18 to 20 ms CPU). A clean of real-subject: 32.7 and 32.2 CPU-s against 35.0
 * and 33.6, the same wall time and the same bytes out.
 */
export const TEXT_MODEL_THREADS = 1;

/** Threads for the fill's kernels (kernels/): they gain little past 4, and ffmpeg needs the other cores. */
export function defaultThreadCount(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/**
 * onnxruntime-node bundles only the CPU provider on linux x64; its postinstall would fetch the CUDA provider
 * libraries, which this project skips (.npmrc). Probing for the library first avoids a failed load that ORT
 * logs as an error on every CPU-only machine.
 */
export function cudaProviderInstalled(): boolean {
  const packageDir = path.dirname(require.resolve("onnxruntime-node/package.json"));
  const binDir = path.join(packageDir, "bin", "napi-v6", process.platform, process.arch);
  return existsSync(path.join(binDir, "libonnxruntime_providers_cuda.so"));
}

/** Opens ONNX models with one provider for all: CUDA when it works (unless "cpu" is asked for), else CPU. */
export async function openModels(
  entries: ModelFile[],
  options: OpenModelsOptions = {},
): Promise<OpenedModels> {
  const requested = options.provider ?? "auto";
  const threads = options.threads ?? TEXT_MODEL_THREADS;
  const resolvePath = options.resolvePath ?? resolveModelPath;
  const files = await Promise.all(
    entries.map(async (entry) => ({ entry, bytes: await loadModelBytes(entry, resolvePath(entry)) })),
  );
  if (requested === "cpu") return { models: await openAll(files, "cpu", threads), provider: "cpu" };

  if (!cudaProviderInstalled()) {
    const reason = "onnxruntime-node's CUDA provider libraries are not installed";
    if (requested === "cuda") throw new ModelFileError(reason);
    return { models: await openAll(files, "cpu", threads), provider: "cpu", cpuReason: reason };
  }
  try {
    return { models: await openAll(files, "cuda", threads), provider: "cuda" };
  } catch (error) {
    if (requested === "cuda") throw error;
    const reason = `CUDA provider failed: ${error instanceof Error ? error.message : String(error)}`;
    return { models: await openAll(files, "cpu", threads), provider: "cpu", cpuReason: reason };
  }
}

/**
 * onnxruntime's intra-op threads spin between the model's operators by default, waiting for work:
 * CPU that the fill, the motion and x264 need on the same cores. Measured on this 2-core machine
 * (shared, load about 10), the detector on 12 real-subject frames at 640x470 with 2 threads: 359 to
 * 389 ms CPU a frame spinning, 186 to 189 ms not, and 828 to 1248 ms of wall time a frame against
 * 347 to 447 ms; the same boxes either way.
 */
const NO_SPINNING = { session: { intra_op: { allow_spinning: "0" } } };

/** How every session of ours is opened: the models' and the fill's kernels' (kernels/). */
export function sessionOptions(
  provider: ExecutionProvider,
  threads: number,
): InferenceSession.SessionOptions {
  return {
    executionProviders: [provider],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    extra: NO_SPINNING,
  };
}

async function openAll(
  files: Array<{ entry: ModelFile; bytes: Uint8Array }>,
  provider: ExecutionProvider,
  threads: number,
): Promise<OpenedModel[]> {
  const sessions: InferenceSession[] = [];
  try {
    const opened: OpenedModel[] = [];
    for (const { entry, bytes } of files) {
      const session = await InferenceSession.create(bytes, sessionOptions(provider, threads));
      sessions.push(session);
      opened.push({ entry, session, ...tensorNames(entry, session) });
    }
    return opened;
  } catch (error) {
    await Promise.all(sessions.map((session) => session.release()));
    throw error;
  }
}

/** The model's one input and one output, which must be the tensors models/models.json lists. */
function tensorNames(entry: ModelFile, session: InferenceSession): { inputName: string; outputName: string } {
  const listed = [...(entry.inputs ?? []), ...(entry.outputs ?? [])].map((spec) => spec.name);
  const [inputName, outputName] = [...session.inputNames, ...session.outputNames];
  if (!inputName || !outputName || listed.join(",") !== `${inputName},${outputName}`) {
    const actual = [...session.inputNames, ...session.outputNames].join(",");
    throw new ModelFileError(
      `${entry.name}: model tensors are ${actual}, models/models.json lists ${listed}`,
    );
  }
  return { inputName, outputName };
}
