import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { endedChildrenSeconds } from "../gpu-worker/engine/stage-clock";

/** How often the process tree's memory is read. */
const SAMPLE_MS = 50;

export interface Measured {
  seconds: number;
  /** CPU seconds (user + system) of the process and all its descendants. */
  cpuSeconds: number;
  /** Highest sum of resident memory over the process and all its descendants (ffmpeg children too). */
  peakRssMb: number;
  exitCode: number | null;
  stdout: string;
  stderrTail: string;
}

/** The process and its descendants, read from /proc (threads' children included). */
function processTree(root: number): number[] {
  const pids = [root];
  for (let i = 0; i < pids.length; i++) {
    const pid = pids[i] as number;
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // already gone
    }
    for (const thread of threads) {
      try {
        const children = readFileSync(`/proc/${pid}/task/${thread}/children`, "utf8").trim();
        if (children) pids.push(...children.split(" ").map(Number));
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return pids;
}

function residentKb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs a command to its end and measures it: wall time, CPU time (Linux: a waited-for child's CPU,
 * its own waited-for children's included, is added to ours), and the peak of the whole process tree's
 * resident memory, sampled every 50 ms (a peak shorter than that can be missed).
 */
export function measureProcess(command: string, args: string[], cwd?: string): Promise<Measured> {
  const started = process.hrtime.bigint();
  const cpuBefore = endedChildrenSeconds();
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let peakKb = 0;
  const sample = () => {
    if (child.pid === undefined) return;
    const total = processTree(child.pid).reduce((sum, pid) => sum + residentKb(pid), 0);
    peakKb = Math.max(peakKb, total);
  };
  const timer = setInterval(sample, SAMPLE_MS);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-2000);
  });
  return new Promise((resolve, reject) => {
    child.once("error", (error) => {
      clearInterval(timer);
      reject(error);
    });
    child.once("close", (exitCode) => {
      clearInterval(timer);
      resolve({
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        cpuSeconds: endedChildrenSeconds() - cpuBefore,
        peakRssMb: peakKb / 1024,
        exitCode,
        stdout,
        stderrTail: stderr.trim(),
      });
    });
  });
}
