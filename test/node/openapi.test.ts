import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createApp } from "../../edge/app";
import { OPENAPI_CONFIG } from "../../edge/routes/openapi";

describe("OpenAPI document", () => {
  const document = createApp().getOpenAPI31Document(OPENAPI_CONFIG);

  it("is a valid OpenAPI 3.1 document, version 1.0.0", async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(document)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(document.info.version).toBe("1.0.0");
  });

  it("describes the endpoints with the spec's schemas, headers and error envelope", () => {
    expect(Object.keys(document.paths ?? {})).toEqual(
      expect.arrayContaining(["/v1/account", "/v1/estimate"]),
    );
    const schemas = document.components?.schemas ?? {};
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(["Account", "Estimate", "Error"]));
    const account = document.paths?.["/v1/account"]?.get;
    expect(Object.keys(account?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "401", "429", "500"]),
    );
    const ok = account?.responses?.["200"] as { headers: Record<string, unknown> };
    expect(Object.keys(ok.headers)).toEqual(
      expect.arrayContaining([
        "X-Request-Id",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
      ]),
    );
    const estimateParams = document.paths?.["/v1/estimate"]?.get?.parameters as Array<{ name: string }>;
    expect(estimateParams.map((p) => p.name)).toContain("duration_seconds");
  });
});
