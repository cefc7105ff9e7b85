import { Hono } from "hono";
import { database } from "../../db/client";
import { parseQuery } from "../../lib/validation";
import { accountView } from "../../routes/account";
import { EstimateQuerySchema } from "../../schemas/estimate";
import { estimateCredits } from "../../services/estimate";
import { workspaceObject } from "../../workspace/stub";
import type { DashboardBindings } from "../context";
import { periodUsage } from "../usage";

/** The Usage page: the same account view as GET /v1/account plus this period's jobs; and estimates. */
export const dashboardAccountRoutes = new Hono<DashboardBindings>()
  .get("/account", async (c) => {
    const { workspace } = c.var.dashboard;
    const balances = await workspaceObject(c.env, workspace.id).balances();
    return c.json({
      ...accountView(workspace, balances),
      usage: await periodUsage(database(c.env.DB), workspace),
    });
  })
  .get("/estimate", async (c) => {
    const { duration_seconds } = parseQuery(c, EstimateQuerySchema);
    return c.json(await estimateCredits(c.env, duration_seconds));
  });
