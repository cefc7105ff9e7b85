import type { Env } from "../env";

/** The Durable Object of a workspace (or of a client address, for unauthenticated rate windows). */
export function workspaceObject(env: Env, name: string) {
  return env.WORKSPACE.get(env.WORKSPACE.idFromName(name));
}
