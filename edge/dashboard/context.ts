import type { Context } from "hono";
import type { AppBindings } from "../env";
import type { WorkspaceRecord } from "../services/workspaces";
import { mediaStorage } from "../storage/media-storage";
import type { Session } from "./sessions";

/** What a signed-in request carries: the session and its workspace (the only one it may touch). */
export interface DashboardContext {
  session: Session;
  workspace: WorkspaceRecord;
}

export type DashboardBindings = {
  Bindings: AppBindings["Bindings"];
  Variables: AppBindings["Variables"] & { dashboard: DashboardContext };
};

export type DashboardRequest = Context<DashboardBindings>;

/** Presigned addresses made for this request's origin (as the /v1 routes do). */
export const storageOf = (c: DashboardRequest) => mediaStorage(c.env, new URL(c.req.url).origin);
