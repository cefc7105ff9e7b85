import { createRequire } from "node:module";

export type OpenCv = typeof import("@techstark/opencv-js");

interface EmscriptenModule {
  Mat?: unknown;
  onRuntimeInitialized?: () => void;
}

let loading: Promise<{ cv: OpenCv }> | undefined;

/**
 * Loads OpenCV.js (WebAssembly embedded in the package, nothing fetched) once per process.
 * The module is wrapped in an object because it is itself a thenable: resolving a promise with it
 * would make the promise call its `then` forever.
 */
export function loadOpenCv(): Promise<{ cv: OpenCv }> {
  loading ??= new Promise((resolve) => {
    const cv = withoutProcessHandlers(() => createRequire(import.meta.url)("@techstark/opencv-js") as OpenCv);
    const module = cv as unknown as EmscriptenModule;
    if (module.Mat) {
      resolve({ cv });
      return;
    }
    module.onRuntimeInitialized = () => resolve({ cv });
  });
  return loading;
}

/**
 * Emscripten's Node glue registers process-wide handlers that rethrow every uncaught exception from
 * inside the 10 MB one-line bundle (so the log prints that line) and abort on any unhandled
 * rejection; the worker keeps its own error handling, so those handlers are removed again.
 */
function withoutProcessHandlers<T>(load: () => T): T {
  const uncaught = process.listeners("uncaughtException");
  const rejection = process.listeners("unhandledRejection");
  try {
    return load();
  } finally {
    for (const listener of process.listeners("uncaughtException")) {
      if (!uncaught.includes(listener)) process.off("uncaughtException", listener);
    }
    for (const listener of process.listeners("unhandledRejection")) {
      if (!rejection.includes(listener)) process.off("unhandledRejection", listener);
    }
  }
}

/** Frees OpenCV matrices (they live in the WebAssembly heap, which no garbage collector sees). */
export function release(...mats: { delete(): void }[]): void {
  for (const mat of mats) mat.delete();
}
