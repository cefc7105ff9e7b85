import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The ffmpeg and ffprobe processes still running anywhere below this test process (children,
 * grandchildren: a shell or a worker in between hides nothing). Read from /proc, so it needs no
 * `ps` (a minimal image has none); when it cannot look, it throws rather than answer "none".
 */
export async function ffmpegChildren(rootPid = process.pid, procDir = "/proc"): Promise<string[]> {
  const processes = await processTable(procDir);
  if (!processes.has(rootPid))
    throw new Error(`process ${rootPid} is not in ${procDir}: cannot look for ffmpeg`);
  const below = new Set([rootPid]);
  // Parents usually have lower ids, but ids wrap: repeat until no process joins the tree.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, entry] of processes) {
      if (!below.has(pid) && below.has(entry.parent)) {
        below.add(pid);
        grew = true;
      }
    }
  }
  return [...below]
    .map((pid) => processes.get(pid))
    .filter((entry) => entry !== undefined && entry.state !== "Z")
    .map((entry) => entry?.command ?? "")
    .filter((command) => command.startsWith("ffmpeg") || command.startsWith("ffprobe"));
}

interface ProcessEntry {
  command: string;
  state: string;
  parent: number;
}

async function processTable(procDir: string): Promise<Map<number, ProcessEntry>> {
  const table = new Map<number, ProcessEntry>();
  for (const name of await readdir(procDir)) {
    if (!/^\d+$/.test(name)) continue;
    // A process may end between readdir and readFile: it is simply not in the table.
    const stat = await readFile(path.join(procDir, name, "stat"), "utf8").catch(() => undefined);
    if (stat === undefined) continue;
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(")");
    const [state, parent] = stat.slice(close + 2).split(" ");
    table.set(Number(name), {
      command: stat.slice(stat.indexOf("(") + 1, close),
      state,
      parent: Number(parent),
    });
  }
  return table;
}
