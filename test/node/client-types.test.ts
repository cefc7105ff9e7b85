import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES_PATH, generateClientTypes } from "../../scripts/lib/openapi-types";
import { PROJECT_ROOT } from "../helpers/stack";

describe("client/openapi.d.ts", () => {
  it("is what `npm run client:types` makes from the current OpenAPI document", async () => {
    const checkedIn = readFileSync(path.join(PROJECT_ROOT, CLIENT_TYPES_PATH), "utf8");
    // On a difference: run `npm run client:types` and commit the file.
    expect(checkedIn).toBe(await generateClientTypes());
  });
});
