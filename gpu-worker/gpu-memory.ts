import { execFile } from "node:child_process";

/** One GPU's memory, in bytes, as nvidia-smi reports it. */
export interface GpuMemory {
  gpu: string;
  usedBytes: number;
  totalBytes: number;
}

const MIB = 1024 * 1024;
const QUERY = ["--query-gpu=index,memory.used,memory.total", "--format=csv,noheader,nounits"];
/** Scrapes come every 15 s or so; a few seconds' staleness spares a process per scrape. */
const CACHE_MS = 5000;

/** nvidia-smi's CSV ("0, 1234, 81559" a line, MiB); lines it cannot read ("[N/A]") are skipped. */
export function parseNvidiaSmi(text: string): GpuMemory[] {
  return text
    .split("\n")
    .map((line) => line.split(",").map((cell) => cell.trim()))
    .filter((cells) => cells.length === 3 && cells.slice(1).every((cell) => /^\d+$/.test(cell)))
    .map(([gpu, used, total]) => ({
      gpu: gpu as string,
      usedBytes: Number(used) * MIB,
      totalBytes: Number(total) * MIB,
    }));
}

function queryNvidiaSmi(): Promise<GpuMemory[]> {
  return new Promise((resolve) => {
    // No nvidia-smi (no GPU, or a container without the utility capability): nothing to report.
    execFile("nvidia-smi", QUERY, { timeout: 3000 }, (error, stdout) =>
      resolve(error ? [] : parseNvidiaSmi(stdout)),
    );
  });
}

/** Reads GPU memory at most once every few seconds, however often it is asked. */
export function gpuMemoryReader(query = queryNvidiaSmi, cacheMs = CACHE_MS): () => Promise<GpuMemory[]> {
  let last: { at: number; reading: Promise<GpuMemory[]> } | undefined;
  return () => {
    if (!last || Date.now() - last.at >= cacheMs) last = { at: Date.now(), reading: query() };
    return last.reading;
  };
}
