import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** `npm <args>` in the project root, as a newcomer would type it; never reaches the network. */
const npm = (args: string[]) =>
  promisify(execFile)("npm", ["--offline", ...args], { cwd: root, timeout: 60_000 });

describe("npm in this project", () => {
  it("prints no warning about the project's own npm configuration", async () => {
    const { stderr } = await npm(["run", "-s", "adclean", "--", "--help"]);
    expect(stderr).not.toMatch(/npm warn/i);
  });

  it("has decided every dependency's install script (allowScripts), so npm ci lists none as unreviewed", async () => {
    const { stdout, stderr } = await npm(["install-scripts", "ls"]);
    expect(stderr).not.toMatch(/npm warn/i);
    expect(stdout.trim()).toBe("No packages with unreviewed install scripts.");
  });
});
