import { Hono } from "hono";
import { z } from "zod";
import { PLAN_IDS, SUBSCRIPTION_STATUSES } from "../billing/plans";
import { createOwner, createSignInLink, resetPassword } from "../dashboard/owners";
import { NewPassword } from "../dashboard/passwords";
import { database } from "../db/client";
import type { AppBindings } from "../env";
import { constantTimeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { parseJsonBody } from "../lib/validation";
import { accountView } from "../routes/account";
import {
  changeSubscription,
  createKey,
  createWorkspace,
  requireWorkspace,
  revokeKey,
} from "../services/provisioning";
import { redispatchQueued } from "../services/reaper";
import { renewDuePlans } from "../services/renewals";
import { runScheduledTasks } from "../services/scheduled";
import { setEndpoint } from "../webhooks/endpoint";
import { workspaceObject } from "../workspace/stub";

const credits = z.number().int().min(0).max(1_000_000_000);
const planChoice = z.enum(["none", ...PLAN_IDS]).transform((plan) => (plan === "none" ? null : plan));

const CreateWorkspace = z.object({
  name: z.string().min(1).max(200).optional(),
  plan: planChoice,
  credits: credits.optional(),
  pack_credits: credits.optional(),
});
const UpdateWorkspace = z.object({
  plan: planChoice.optional(),
  subscription_status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  cancel_at_period_end: z.boolean().optional(),
  current_period_end: z.iso.datetime().nullable().optional(),
});
const AddCredits = z
  .object({ plan: credits.optional(), pack: credits.optional() })
  .refine((body) => body.plan !== undefined || body.pack !== undefined, "give plan or pack");

const CreateOwner = z.object({ email: z.email().max(320), password: NewPassword });
const ResetPassword = z.object({ email: z.string().min(1).max(320), password: NewPassword });

/** The operators' API (ADMIN_TOKEN). Not part of /v1 and not in the public OpenAPI document. */
export const adminRoutes = new Hono<AppBindings>()
  .use(async (c, next) => {
    const token = c.req.header("Authorization")?.match(/^Bearer\s+(\S+)$/)?.[1] ?? "";
    if (!c.env.ADMIN_TOKEN || !(await constantTimeEqual(token, c.env.ADMIN_TOKEN))) {
      throw new ApiError("invalid_api_key", "The admin API needs 'Authorization: Bearer <ADMIN_TOKEN>'.");
    }
    await next();
  })
  .post("/workspaces", async (c) => {
    const body = await parseJsonBody(c, CreateWorkspace);
    const created = await createWorkspace(c.env, database(c.env.DB), {
      name: body.name,
      planId: body.plan,
      credits: body.credits,
      packCredits: body.pack_credits,
    });
    return c.json(created, 201);
  })
  .get("/workspaces/:id", async (c) => {
    const workspace = await requireWorkspace(database(c.env.DB), c.req.param("id"));
    return c.json(accountView(workspace, await workspaceObject(c.env, workspace.id).balances()));
  })
  .patch("/workspaces/:id", async (c) => {
    const body = await parseJsonBody(c, UpdateWorkspace);
    const workspace = await changeSubscription(database(c.env.DB), c.req.param("id"), {
      planId: body.plan,
      status: body.subscription_status,
      cancelAtPeriodEnd: body.cancel_at_period_end,
      currentPeriodEnd:
        body.current_period_end === undefined || body.current_period_end === null
          ? body.current_period_end
          : Date.parse(body.current_period_end),
    });
    return c.json(accountView(workspace, await workspaceObject(c.env, workspace.id).balances()));
  })
  .post("/workspaces/:id/keys", async (c) => {
    const body = await parseJsonBody(c, z.object({ name: z.string().max(100).optional() }));
    return c.json(await createKey(database(c.env.DB), c.req.param("id"), body.name), 201);
  })
  .post("/workspaces/:id/keys/:keyId/revoke", async (c) =>
    c.json(await revokeKey(database(c.env.DB), c.req.param("id"), c.req.param("keyId"))),
  )
  .put("/workspaces/:id/webhook", async (c) => {
    const body = await parseJsonBody(c, z.object({ url: z.string().min(1).max(2048) }));
    const endpoint = await setEndpoint(c.env, database(c.env.DB), c.req.param("id"), body.url);
    return c.json({ url: endpoint.url, signing_secret: endpoint.signing_secret });
  })
  .post("/workspaces/:id/credits", async (c) => {
    const body = await parseJsonBody(c, AddCredits);
    const workspace = await requireWorkspace(database(c.env.DB), c.req.param("id"));
    const balances = await workspaceObject(c.env, workspace.id).grant(body, "admin_grant");
    return c.json({ credits: { ...balances, total: balances.plan + balances.pack } });
  })
  .post("/workspaces/:id/owners", async (c) => {
    const body = await parseJsonBody(c, CreateOwner);
    const owner = await createOwner(database(c.env.DB), c.req.param("id"), body.email, body.password);
    return c.json({ owner_id: owner.id, workspace_id: owner.workspaceId, email: owner.email }, 201);
  })
  // An owner who forgot the password: every one of their sessions ends with the old one.
  .put("/workspaces/:id/owners/password", async (c) => {
    const body = await parseJsonBody(c, ResetPassword);
    const owner = await resetPassword(database(c.env.DB), c.req.param("id"), body.email, body.password);
    return c.json({ owner_id: owner.id, workspace_id: owner.workspaceId, email: owner.email });
  })
  .post("/workspaces/:id/owners/link", async (c) => {
    const body = await parseJsonBody(c, z.object({ email: z.string().min(1).max(320) }));
    const link = await createSignInLink(database(c.env.DB), c.req.param("id"), body.email);
    // The token rides in the fragment: browsers never send it to a server, so it stays out of logs.
    return c.json(
      {
        url: `${c.env.PUBLIC_BASE_URL}/#/link/${link.token}`,
        expires_at: new Date(link.expiresAt).toISOString(),
      },
      201,
    );
  })
  .post("/renewals/run", async (c) => c.json(await renewDuePlans(c.env, Date.now())))
  // The cron trigger's work on demand: `npm start` ticks it with this locally.
  .post("/scheduled/run", async (c) => c.json(await runScheduledTasks(c.env, Date.now())))
  // Local queues live in wrangler dev's memory: `npm start` calls this once ready, so the queued
  // jobs of a stopped stack are sent again (the reaper resends only messages whose send failed).
  .post("/jobs/redispatch", async (c) => {
    const now = Date.now();
    let redispatched = 0;
    // Each batch marks its jobs touched at `now`, so the next one finds only the rest.
    for (;;) {
      const sent = await redispatchQueued(c.env, now);
      if (sent === 0) break;
      redispatched += sent;
    }
    return c.json({ redispatched });
  });
