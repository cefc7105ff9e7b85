/**
 * The admin CLI (CONTRACT.md): talks to the running service's admin API with BASE_URL and
 * ADMIN_TOKEN (from the environment, else the local dev config). Prints one JSON line per command.
 */
import { parseArgs } from "node:util";
import { bindOptionValues } from "../client/cli/args";
import { baseUrl, readDevVars } from "./lib/dev-config";

const USAGE = `usage:
  admin workspace create --plan none|starter|growth|scale [--credits N] [--pack-credits N] [--name S]
  admin workspace show --workspace W
  admin workspace plan --workspace W --plan none|starter|growth|scale
  admin key create --workspace W [--name S]
  admin key revoke --workspace W --key-id K
  admin webhook set --workspace W --url U
  admin credits add --workspace W (--plan N | --pack N)
  admin owner create --workspace W --email E --password P
  admin owner link --workspace W --email E
  admin owner password --workspace W --email E --password P`;

class UsageError extends Error {}

const OPTIONS = {
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
} as const;

// A value may start with a dash (a password, a name): bound to its option before parsing.
const { positionals, values } = parseArgs({
  args: bindOptionValues(process.argv.slice(2), OPTIONS),
  allowPositionals: true,
  options: OPTIONS,
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
  }).catch((error: unknown) => {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? String(error);
    throw new Error(
      `nothing answered at ${baseUrl()} (${cause}). Start the service with \`npm start\` ` +
        "(it listens on PORT, default 8787), or set BASE_URL (or PORT) to where it runs.",
    );
  });
  const answer = await response.json().catch(() => ({ error: { message: `HTTP ${response.status}` } }));
  if (!response.ok) {
    const error = (answer as { error?: { message?: string } }).error;
    throw new Error(`${response.status}: ${error?.message ?? "request failed"}`);
  }
  return answer;
}

/** A plan without API access or webhooks still gets a key and a secret: say on stderr what they are good for. */
async function notePlanLimits(workspaceId: string): Promise<void> {
  const { limits } = (await call("GET", `/workspaces/${encodeURIComponent(workspaceId)}`)) as {
    limits: { api_access: boolean; webhooks: boolean };
  };
  if (!limits.api_access)
    console.error(
      "admin: note: this plan has no API access: the key answers only GET /v1/account and GET /v1/estimate " +
        "(the dashboard cleans videos on every plan); `workspace plan --plan growth` opens the API.",
    );
  if (!limits.webhooks)
    console.error(
      "admin: note: this plan has no webhooks: the signing secret is used once the plan is growth or scale.",
    );
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
      await notePlanLimits(workspace_id as string);
      return { workspace_id, api_key, signing_secret, key_id };
    }
    case "workspace plan":
      return call("PATCH", workspacePath(), { plan: required("plan") });
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
