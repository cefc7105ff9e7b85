import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppBindings } from "../env";
import type { AuthContext } from "../middleware/auth";
import { errorResponses, jsonResponse } from "../schemas/common";
import {
  IdempotencyHeaderSchema,
  type Job,
  JobCreateSchema,
  JobIdParamSchema,
  JobListQuerySchema,
  JobListSchema,
  JobSchema,
} from "../schemas/jobs";
import { cancelJob } from "../services/cancel";
import { jobView } from "../services/job-view";
import { createJob, findJob, listJobs } from "../services/jobs";
import { mediaStorage } from "../storage/media-storage";
import { sendCreated } from "./respond";

const create = createRoute({
  method: "post",
  path: "/v1/jobs",
  tags: ["Jobs"],
  summary: "Create a job; its credits are reserved at once",
  request: {
    headers: IdempotencyHeaderSchema,
    body: { required: true, content: { "application/json": { schema: JobCreateSchema } } },
  },
  responses: {
    201: jsonResponse(JobSchema, "The job, queued"),
    ...errorResponses(400, 402, 403, 404, 409, 413, 422),
  },
});

const list = createRoute({
  method: "get",
  path: "/v1/jobs",
  tags: ["Jobs"],
  summary: "List jobs, newest first",
  request: { query: JobListQuerySchema },
  responses: { 200: jsonResponse(JobListSchema, "A page of jobs"), ...errorResponses(400, 403) },
});

const get = createRoute({
  method: "get",
  path: "/v1/jobs/{id}",
  tags: ["Jobs"],
  summary: "Retrieve a job (with a result URL valid one hour once succeeded)",
  request: { params: JobIdParamSchema },
  responses: { 200: jsonResponse(JobSchema, "The job"), ...errorResponses(403, 404) },
});

const cancel = createRoute({
  method: "post",
  path: "/v1/jobs/{id}/cancel",
  tags: ["Jobs"],
  summary: "Cancel a queued or running job and return its credits",
  description:
    "A job that already succeeded, failed or was canceled is returned unchanged with 200: cancel is idempotent.",
  request: { params: JobIdParamSchema },
  responses: { 200: jsonResponse(JobSchema, "The job"), ...errorResponses(403, 404) },
});

const storageOf = (c: { env: AppBindings["Bindings"]; req: { url: string } }) =>
  mediaStorage(c.env, new URL(c.req.url).origin);

export const jobRoutes = new OpenAPIHono<AppBindings>()
  .openapi(create, async (c) => {
    const { workspace } = c.var.auth as AuthContext;
    const answer = await createJob(c.env, storageOf(c), {
      workspace,
      body: c.req.valid("json"),
      source: "api",
      idempotencyKey: c.req.valid("header")["idempotency-key"],
    });
    return sendCreated<Job>(c, answer);
  })
  .openapi(list, async (c) => {
    const { workspace } = c.var.auth as AuthContext;
    const query = c.req.valid("query");
    const page = await listJobs(c.env, storageOf(c), workspace.id, {
      limit: query.limit ?? 20,
      status: query.status,
      startingAfter: query.starting_after,
    });
    return c.json(page, 200);
  })
  .openapi(get, async (c) => {
    const { workspace } = c.var.auth as AuthContext;
    const row = await findJob(c.env, workspace.id, c.req.valid("param").id);
    return c.json(await jobView(row, storageOf(c)), 200);
  })
  .openapi(cancel, async (c) => {
    const { workspace } = c.var.auth as AuthContext;
    const storage = storageOf(c);
    const row = await cancelJob(c.env, storage, workspace.id, c.req.valid("param").id);
    return c.json(await jobView(row, storage), 200);
  });
