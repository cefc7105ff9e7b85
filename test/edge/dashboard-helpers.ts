import { SELF } from "cloudflare:test";
import { admin, createWorkspace } from "./helpers";

/** The dashboard's own origin in these tests (the helpers' base address). */
export const ORIGIN = "http://edge.test";
export const PASSWORD = "correct horse battery staple";

export interface Browser {
  cookie: string;
  csrf: string;
}

const randomByte = () => Math.floor(Math.random() * 256);

/** Calls the dashboard API as its pages do: Origin, the session cookie and the CSRF token. */
export function dash(
  path: string,
  init: {
    method?: string;
    body?: unknown;
    as?: Browser | undefined;
    origin?: string | null;
    csrf?: string;
    address?: string;
  } = {},
): Promise<Response> {
  // Sign-ins are throttled per client address: each call comes from its own unless told otherwise.
  const headers = new Headers({ "CF-Connecting-IP": init.address ?? `10.0.${randomByte()}.${randomByte()}` });
  if (init.origin !== null) headers.set("Origin", init.origin ?? ORIGIN);
  if (init.as) headers.set("Cookie", init.as.cookie);
  const csrf = init.csrf ?? init.as?.csrf;
  if (csrf) headers.set("X-CSRF-Token", csrf);
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  return SELF.fetch(`${ORIGIN}/dashboard/api${path}`, {
    method: init.method ?? "GET",
    headers,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
}

/** `name=value` of the session cookie an answer sets. */
export function sessionCookie(response: Response): string {
  const header = response.headers.get("Set-Cookie") ?? "";
  const pair = header.split(";")[0] ?? "";
  if (!pair.startsWith("adclean_session=")) throw new Error(`no session cookie: ${header}`);
  return pair;
}

export async function signIn(email: string, password = PASSWORD): Promise<Browser> {
  const response = await dash("/session", { method: "POST", body: { email, password } });
  if (response.status !== 201) throw new Error(`sign-in: ${response.status} ${await response.text()}`);
  const { csrf_token } = await response.json<{ csrf_token: string }>();
  return { cookie: sessionCookie(response), csrf: csrf_token };
}

let owners = 0;

/** A workspace with an owner, signed in. */
export async function ownerWorkspace(plan = "growth") {
  const workspace = await createWorkspace({ plan, credits: 1000 });
  const email = `owner${++owners}-${workspace.workspace_id}@example.com`.toLowerCase();
  const created = await admin(`/workspaces/${workspace.workspace_id}/owners`, "POST", {
    email,
    password: PASSWORD,
  });
  if (created.status !== 201) throw new Error(`owner create: ${created.status} ${await created.text()}`);
  return { ...workspace, email, browser: await signIn(email) };
}
