import { Hono } from "hono";
import { z } from "zod";
import { database } from "../../db/client";
import { parseJsonBody } from "../../lib/validation";
import { createKey, listKeys, revokeKey } from "../../services/provisioning";
import type { DashboardBindings } from "../context";

/** The API keys page: the admin API's key services, on the signed-in workspace only. */
export const dashboardKeyRoutes = new Hono<DashboardBindings>()
  .get("/keys", async (c) =>
    c.json({ object: "list", data: await listKeys(database(c.env.DB), c.var.dashboard.workspace.id) }),
  )
  .post("/keys", async (c) => {
    const body = await parseJsonBody(c, z.object({ name: z.string().trim().max(100).default("") }));
    return c.json(await createKey(database(c.env.DB), c.var.dashboard.workspace.id, body.name), 201);
  })
  .post("/keys/:keyId/revoke", async (c) =>
    c.json(await revokeKey(database(c.env.DB), c.var.dashboard.workspace.id, c.req.param("keyId"))),
  );
