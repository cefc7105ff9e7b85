import { createApp } from "./app";
import type { Env } from "./env";
import { renewDuePlans } from "./services/renewals";

export { WorkspaceObject } from "./workspace/workspace-object";

const app = createApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(renewDuePlans(env, Date.now()));
  },
} satisfies ExportedHandler<Env>;
