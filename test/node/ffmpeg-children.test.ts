import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, test } from "vitest";
import { ffmpegChildren } from "../helpers/ffmpeg-children";

let shell: ChildProcess | undefined;

afterEach(() => {
  const group = shell?.pid;
  shell = undefined;
  if (!group) return;
  try {
    process.kill(-group, "SIGKILL");
  } catch (error) {
    // The test killed the group itself, and it may already be reaped: nothing is left to stop.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
});

test("sees an ffmpeg a shell started (a grandchild), and no longer once it is gone", async () => {
  // `; exit` keeps sh from exec'ing ffmpeg in its own place: ffmpeg is sh's child, our grandchild.
  shell = spawn(
    "sh",
    ["-c", "ffmpeg -nostdin -loglevel error -re -f lavfi -i nullsrc=s=16x16 -f null -; exit"],
    {
      detached: true,
      stdio: "ignore",
    },
  );
  expect(await waitFor(async () => (await ffmpegChildren()).length > 0)).toBe(true);
  expect(await ffmpegChildren()).toEqual(["ffmpeg"]);
  process.kill(-(shell.pid as number), "SIGKILL");
  expect(await waitFor(async () => (await ffmpegChildren()).length === 0)).toBe(true);
});

test("fails when it cannot read the process table, instead of answering 'none left'", async () => {
  const empty = await mkdtemp(path.join(os.tmpdir(), "no-proc-"));
  try {
    await expect(ffmpegChildren(process.pid, path.join(empty, "missing"))).rejects.toThrow();
    await expect(ffmpegChildren(process.pid, empty)).rejects.toThrow(/cannot look/);
  } finally {
    await rm(empty, { recursive: true });
  }
});

/** Checks `condition` every 100 ms for at most 10 s. */
async function waitFor(condition: () => Promise<boolean>): Promise<boolean> {
  for (let tries = 0; tries < 100; tries++) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}
