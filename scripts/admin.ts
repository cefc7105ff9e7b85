/**
 * The admin CLI (CONTRACT.md): talks to the running service's admin API with BASE_URL and
 * ADMIN_TOKEN (from the environment, else the local dev config). Prints one JSON line per command.
 */
import { parseArgs } from "node:util";
import { baseUrl, readDevVars } from "./lib/dev-config";

const USAGE = `usage:
  admin workspace create --plan none|starter|growth|scale [--credits N] [--pack-credits N] [--name S]
  admin workspace show --workspace W
  admin key create --workspace W [--name S]
  admin key revoke --workspace W --key-id K
  admin webhook set --workspace W --url U
  admin credits add --workspace W (--plan N | --pack N)
  admin owner create --workspace W --email E --password P
  admin owner link --workspace W --email E
  admin owner password --workspace W --email E --password P`;

class UsageError extends Error {}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    plan: { type: "string" },
    credits: { type: "string" },
    "pack-credits": { type: "string" },
    pack: { type: "string" },
    name: { type: "string" },
    workspace: { type: "string" },
    "key-id": { type: "string" },
    url: { type: "string" },
    email: { type: "string" },
    password: { type: "string" },
  },
});

function required(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

function count(name: keyof typeof values): number | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^\d+$/.test(value))
    throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const token = process.env.ADMIN_TOKEN ?? readDevVars().ADMIN_TOKEN;
  if (!token) throw new UsageError("no ADMIN_TOKEN: set it, or run `npm start` once to create .dev.vars");
  const response = await fetch(`${baseUrl()}/admin${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await response.json().catch(() => ({ error: { message: `HTTP ${response.status}` } }));
  if (!response.ok) {
    const error = (answer as { error?: { message?: string } }).error;
    throw new Error(`${response.status}: ${error?.message ?? "request failed"}`);
  }
  return answer;
}

async function dispatch(): Promise<unknown> {
  const command = positionals.join(" ");
  const workspacePath = () => `/workspaces/${encodeURIComponent(required("workspace"))}`;
  switch (command) {
    case "workspace create": {
      const created = (await call("POST", "/workspaces", {
        plan: required("plan"),
        credits: count("credits"),
        pack_credits: count("pack-credits"),
        name: values.name,
      })) as Record<string, string>;
      const { workspace_id, api_key, signing_secret, key_id } = created;
      return { workspace_id, api_key, signing_secret, key_id };
    }
    case "workspace show":
      return call("GET", workspacePath());
    case "key create": {
      const { key_id, api_key } = (await call("POST", `${workspacePath()}/keys`, {
        name: values.name,
      })) as Record<string, string>;
      return { key_id, api_key };
    }
    case "key revoke":
      return call("POST", `${workspacePath()}/keys/${encodeURIComponent(required("key-id"))}/revoke`);
    case "webhook set":
      return call("PUT", `${workspacePath()}/webhook`, { url: required("url") });
    case "credits add": {
      const plan = count("plan");
      const pack = count("pack");
      if ((plan === undefined) === (pack === undefined))
        throw new UsageError("give exactly one of --plan N, --pack N");
      return call("POST", `${workspacePath()}/credits`, { plan, pack });
    }
    case "owner create":
      return call("POST", `${workspacePath()}/owners`, {
        email: required("email"),
        password: required("password"),
      });
    case "owner password":
      return call("PUT", `${workspacePath()}/owners/password`, {
        email: required("email"),
        password: required("password"),
      });
    case "owner link": {
      const { url } = (await call("POST", `${workspacePath()}/owners/link`, {
        email: required("email"),
      })) as Record<string, string>;
      return { url };
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : "no command");
  }
}

dispatch().then(
  (result) => console.log(JSON.stringify(result)),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`admin: ${message}`);
    if (error instanceof UsageError) console.error(USAGE);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
