// Live answers of every /v1 endpoint, checked against the OpenAPI document the Worker serves: the
// document is generated from the same zod schemas, and this shows the answers really keep to it.
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { createApp } from "../../edge/app";
import { OPENAPI_CONFIG } from "../../edge/routes/openapi";
import { api, createWorkspace, fixtureUrl, postJson, uploadFixture } from "./helpers";

interface OpenApiDocument {
  components: Record<string, unknown>;
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: { "application/json"?: { schema: object } } }> }>
  >;
}

/** Fails with the validator's words when `response`'s JSON breaks the document's schema for it. */
async function expectDocumented(
  document: OpenApiDocument,
  method: string,
  route: string,
  response: Response,
) {
  const operation = document.paths[route]?.[method.toLowerCase()];
  const schema = operation?.responses[String(response.status)]?.content?.["application/json"]?.schema;
  expect(schema, `${method} ${route} ${response.status} is documented`).toBeDefined();
  // The response's schema at the root beside the components, so its "#/components/…" refs resolve.
  const validator = new Validator({ ...schema, components: document.components }, "2020-12", false);
  const result = validator.validate(await response.json());
  expect(result.errors, `${method} ${route} ${response.status}`).toEqual([]);
}

describe("live /v1 answers match the served OpenAPI document", () => {
  it("account, estimate, uploads, jobs (create, list, get, cancel) and their errors", async () => {
    const document = await (await api("/v1/openapi.json")).json<OpenApiDocument>();
    const { api_key } = await createWorkspace({ plan: "growth", credits: 1000 });
    const check = (method: string, route: string, response: Response) =>
      expectDocumented(document, method, route, response);

    await check("GET", "/v1/account", await api("/v1/account", { key: api_key }));
    await check("GET", "/v1/estimate", await api("/v1/estimate?duration_seconds=61.2", { key: api_key }));
    await check("GET", "/v1/estimate", await api("/v1/estimate?duration_seconds=-1", { key: api_key }));
    await check(
      "POST",
      "/v1/uploads",
      await postJson("/v1/uploads", api_key, {
        filename: "a.mp4",
        content_type: "video/mp4",
        size_bytes: 10,
      }),
    );
    const upload = await uploadFixture(api_key, "clip.mp4");
    const created = await postJson("/v1/jobs", api_key, {
      upload_id: upload.id,
      metadata: { campaign: "spring" },
    });
    const job = (await created.clone().json()) as { id: string };
    await check("POST", "/v1/jobs", created);
    await check("POST", "/v1/jobs", await postJson("/v1/jobs", api_key, { upload_id: upload.id }));
    await check(
      "POST",
      "/v1/jobs",
      await postJson("/v1/jobs", api_key, { video_url: fixtureUrl("404", "status") }),
    );
    await check("GET", "/v1/jobs", await api("/v1/jobs?limit=1", { key: api_key }));
    await check("GET", "/v1/jobs/{id}", await api(`/v1/jobs/${job.id}`, { key: api_key }));
    await check("GET", "/v1/jobs/{id}", await api("/v1/jobs/job_none", { key: api_key }));
    await check(
      "POST",
      "/v1/jobs/{id}/cancel",
      await api(`/v1/jobs/${job.id}/cancel`, { method: "POST", key: api_key }),
    );
    await check("GET", "/v1/account", await api("/v1/account", { key: "sk_live_wrong" }));
  });
});

describe("the served /v1/openapi.json", () => {
  it("is the document the tests and `npm run client:types` generate from, and declares both key schemes", async () => {
    const served = await (await api("/v1/openapi.json")).json<Record<string, unknown>>();
    expect(served).toEqual(JSON.parse(JSON.stringify(createApp().getOpenAPI31Document(OPENAPI_CONFIG))));
    expect(served.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    const schemes = (served.components as { securitySchemes: Record<string, unknown> }).securitySchemes;
    expect(schemes).toMatchObject({
      bearerAuth: { type: "http", scheme: "bearer" },
      apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
    });
  });

  it("describes every job-creation field", async () => {
    const served = await (await api("/v1/openapi.json")).json<{
      components: { schemas: { JobCreate: { properties: Record<string, { description?: string }> } } };
    }>();
    const fields = served.components.schemas.JobCreate.properties;
    expect(Object.keys(fields).sort()).toEqual([
      "filename",
      "metadata",
      "regions",
      "texts",
      "upload_id",
      "video_url",
    ]);
    for (const [name, field] of Object.entries(fields)) {
      expect(field.description, name).toMatch(/\w{3,}/);
    }
  });
});
