import { Hono } from "hono";
import { parseJsonBody, parseQuery } from "../../lib/validation";
import type { Job } from "../../schemas/jobs";
import { JobCreateSchema, JobListQuerySchema } from "../../schemas/jobs";
import { UploadCreateSchema } from "../../schemas/uploads";
import { cancelJob } from "../../services/cancel";
import { jobView } from "../../services/job-view";
import { createJob, findJob, listJobs } from "../../services/jobs";
import { createUpload } from "../../services/uploads";
import { type DashboardBindings, storageOf } from "../context";
import { originalUrl } from "../original";

/**
 * The Clean and Jobs pages, through the same services as POST /v1/uploads and /v1/jobs (source
 * "web"). No plan gate: the dashboard is how plans without API access clean videos.
 */
export const dashboardJobRoutes = new Hono<DashboardBindings>()
  .post("/uploads", async (c) => {
    const answer = await createUpload(c.env, storageOf(c), {
      workspace: c.var.dashboard.workspace,
      body: await parseJsonBody(c, UploadCreateSchema),
    });
    return c.json(JSON.parse(answer.body), 201);
  })
  .post("/jobs", async (c) => {
    const answer = await createJob(c.env, storageOf(c), {
      workspace: c.var.dashboard.workspace,
      body: await parseJsonBody(c, JobCreateSchema),
      source: "web",
    });
    return c.json(JSON.parse(answer.body) as Job, 201);
  })
  .get("/jobs", async (c) => {
    const query = parseQuery(c, JobListQuerySchema);
    const page = await listJobs(c.env, storageOf(c), c.var.dashboard.workspace.id, {
      limit: query.limit ?? 20,
      status: query.status,
      startingAfter: query.starting_after,
    });
    return c.json(page);
  })
  .get("/jobs/:id", async (c) => {
    const storage = storageOf(c);
    const row = await findJob(c.env, c.var.dashboard.workspace.id, c.req.param("id"));
    return c.json({
      ...(await jobView(row, storage)),
      original_url: await originalUrl(c.env, storage, row),
      // What the owner asked to erase (null: every caption and overlay), shown beside the result.
      texts: row.texts === null ? null : (JSON.parse(row.texts) as string[]),
    });
  })
  .post("/jobs/:id/cancel", async (c) => {
    const storage = storageOf(c);
    const row = await cancelJob(c.env, storage, c.var.dashboard.workspace.id, c.req.param("id"));
    return c.json(await jobView(row, storage));
  });
