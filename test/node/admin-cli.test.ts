import { describe, expect, it } from "vitest";
import { freePort } from "../../scripts/lib/ports";
import { npmRun } from "../helpers/stack";

describe("the admin CLI with no service behind BASE_URL", () => {
  it("names the address it tried and what to run", async () => {
    const port = await freePort();
    const run = await npmRun("admin", ["workspace", "show", "--workspace", "ws_x"], {
      BASE_URL: `http://127.0.0.1:${port}`,
      ADMIN_TOKEN: "any",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`admin: nothing answered at http://127.0.0.1:${port} (ECONNREFUSED)`);
    expect(run.stderr).toContain("npm start");
    expect(run.stderr).not.toContain("fetch failed");
  });
});
