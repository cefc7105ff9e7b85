import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

const INTERNAL_ERROR = -32603;
const INVALID_PARAMS = -32602;

interface SchemaIssue {
  code: string;
  path: (string | number)[];
  message: string;
}

/** The issues of a schema failure, when `text` is the JSON a ZodError's message holds; else null. */
function schemaIssues(text: string): SchemaIssue[] | null {
  if (!text.startsWith("[")) return null;
  try {
    const issues = JSON.parse(text) as unknown;
    const isIssue = (issue: unknown) =>
      typeof (issue as SchemaIssue)?.code === "string" &&
      Array.isArray((issue as SchemaIssue).path) &&
      typeof (issue as SchemaIssue).message === "string";
    return Array.isArray(issues) && issues.length > 0 && issues.every(isIssue)
      ? (issues as SchemaIssue[])
      : null;
  } catch {
    return null;
  }
}

/**
 * The SDK (1.32) checks a request's params against the method's schema when it dispatches, and a
 * failure escapes as a ZodError that it answers as -32603 Internal error, with the issues' JSON as
 * the message (typescript-sdk#2284): the caller is told the server broke when its params were
 * wrong. Such an answer is rewritten as JSON-RPC's -32602 Invalid params, naming each field.
 * Any other error passes unchanged.
 */
function asInvalidParams(message: JSONRPCMessage): JSONRPCMessage {
  if (!("error" in message) || message.error.code !== INTERNAL_ERROR) return message;
  const issues = schemaIssues(message.error.message);
  if (!issues) return message;
  const described = issues.map(({ path, message: problem }) => `${path.join(".") || "params"}: ${problem}`);
  return { ...message, error: { code: INVALID_PARAMS, message: `Invalid params: ${described.join("; ")}` } };
}

/** The SDK's Streamable HTTP transport, answering schema-invalid params as -32602 (asInvalidParams). */
export class McpHttpTransport extends WebStandardStreamableHTTPServerTransport {
  override send(...[message, options]: Parameters<WebStandardStreamableHTTPServerTransport["send"]>) {
    return super.send(asInvalidParams(message), options);
  }
}
