import { createServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningStack, startStack } from "../helpers/stack";

/** Wrangler's default inspector address, which a second stack, the tests or a debugger also want. */
const INSPECTOR_DEFAULT = 9229;

/** Whether 127.0.0.1:`port` can be bound now (it is released again at once). */
async function canBind(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

let stack: RunningStack | undefined;
afterAll(async () => {
  await stack?.stop();
});

describe("npm start beside other stacks", () => {
  it("leaves 127.0.0.1:9229 to others (its inspector takes a free port) and prints no advice that does not apply", async () => {
    const freeBefore = await canBind(INSPECTOR_DEFAULT);
    stack = await startStack(18935);
    expect((await fetch(`${stack.baseUrl}/health`)).status).toBe(200);
    // Held by something else already, the port says nothing about this stack; free, it must stay free.
    if (freeBefore) expect(await canBind(INSPECTOR_DEFAULT)).toBe(true);
    const output = stack.output();
    expect(output).not.toMatch(/address already in use/i);
    // npm start runs the scheduled tasks itself: wrangler's "curl /cdn-cgi/handler/scheduled" is wrong here.
    expect(output).not.toContain("/cdn-cgi/handler/scheduled");
  });
});
