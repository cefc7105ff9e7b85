import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

/**
 * The machine's processes, read from /proc: tests need no `ps` (a minimal image has none), and a
 * process table that cannot be read throws rather than looking empty.
 */
export interface ProcessEntry {
  pid: number;
  parent: number;
  /** The executable's short name (`comm`), e.g. "ffmpeg". */
  command: string;
  /** The command line, arguments separated by spaces. */
  args: string;
  /** R running, S sleeping, Z exited but not yet reaped, … */
  state: string;
}

export async function processTable(procDir = "/proc"): Promise<Map<number, ProcessEntry>> {
  const table = new Map<number, ProcessEntry>();
  for (const name of await readdir(procDir)) {
    if (!/^\d+$/.test(name)) continue;
    // A process may end between readdir and readFile: it is then simply not in the table.
    const [stat, cmdline] = await Promise.all(
      ["stat", "cmdline"].map((file) =>
        readFile(path.join(procDir, name, file), "utf8").catch(() => undefined),
      ),
    );
    if (stat === undefined) continue;
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(")");
    const [state, parent] = stat.slice(close + 2).split(" ");
    table.set(Number(name), {
      pid: Number(name),
      parent: Number(parent),
      command: stat.slice(stat.indexOf("(") + 1, close),
      args: (cmdline ?? "").split("\0").join(" ").trim(),
      state: state ?? "",
    });
  }
  return table;
}

/** Every process below `rootPid` (children, grandchildren, …); throws when `rootPid` is not in the table. */
export async function descendantsOf(rootPid: number, procDir = "/proc"): Promise<ProcessEntry[]> {
  const table = await processTable(procDir);
  if (!table.has(rootPid)) throw new Error(`process ${rootPid} is not in ${procDir}: cannot look below it`);
  const below = new Set([rootPid]);
  // Parents usually have lower ids, but ids wrap: repeat until no process joins the tree.
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of table.values()) {
      if (!below.has(entry.pid) && below.has(entry.parent)) {
        below.add(entry.pid);
        grew = true;
      }
    }
  }
  below.delete(rootPid);
  return [...below].map((pid) => table.get(pid) as ProcessEntry);
}

/** False for a process that is gone or exited and not yet reaped (a zombie). */
export const isRunning = (entry: ProcessEntry | undefined) => entry !== undefined && entry.state !== "Z";
