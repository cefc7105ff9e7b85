import { createServer, type Server } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningStack, startStack } from "../helpers/stack";

/** Wrangler's default inspector address, held as another `npm start` or a debugger would hold it. */
const INSPECTOR_DEFAULT = 9229;

let holder: Server | undefined;
let stack: RunningStack | undefined;

afterAll(async () => {
  await stack?.stop();
  await new Promise((resolve) => (holder ? holder.close(resolve) : resolve(undefined)));
});

describe("npm start beside another stack", () => {
  it("gets ready while 127.0.0.1:9229 is taken, and prints no advice that does not apply", async () => {
    holder = createServer();
    // Already taken (another stack, a debugger) is the same situation: carry on either way.
    await new Promise<void>((resolve) => {
      holder?.once("error", () => resolve());
      holder?.listen(INSPECTOR_DEFAULT, "127.0.0.1", () => resolve());
    });
    stack = await startStack(18935);
    const health = await fetch(`${stack.baseUrl}/health`);
    expect(health.status).toBe(200);
    const output = stack.output();
    expect(output).not.toMatch(/address already in use/i);
    // npm start runs the scheduled tasks itself: wrangler's "curl /cdn-cgi/handler/scheduled" is wrong here.
    expect(output).not.toContain("/cdn-cgi/handler/scheduled");
  });
});
