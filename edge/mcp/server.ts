import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { z } from "zod";
import { planRequiredMessage } from "../billing/plans";
import { ApiError } from "../lib/errors";
import { invalidParameter } from "../lib/validation";
import { countRequest, refuseIfLimited } from "../middleware/rate-limit";
import { rateBucketFor } from "../workspace/rate-limit";
import { toolError, toolResult } from "./results";
import type { McpContext, McpTool, ReportProgress } from "./tool";
import { TOOLS } from "./tools";

const SERVER_INFO = { name: "adclean", version: "1.0.0" };
const INSTRUCTIONS =
  "Removes captions, hooks and text overlays from video ads and returns a clean MP4. Usual flow: estimate_credits, " +
  "create_job with a video_url (or create_upload, PUT the file, then create_job with the upload_id), wait_for_job " +
  "until it succeeds, then download result.url.";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const toolsByName = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** The tools/list answer, made once: the JSON Schemas come from the zod schemas that validate. */
const LISTING: Tool[] = TOOLS.map((tool) => ({
  name: tool.name,
  description: tool.description,
  inputSchema: z.toJSONSchema(tool.input, { io: "input" }) as Tool["inputSchema"],
}));

function progressReporter(params: CallToolRequest["params"], extra: Extra): ReportProgress {
  const progressToken = params._meta?.progressToken;
  if (progressToken === undefined) return async () => {};
  return (progress, message) =>
    extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken, progress, total: 1, message },
    });
}

/** The /v1 plan gate, per tool: without API access only the account and the estimate answer. */
function checkPlan(tool: McpTool, context: McpContext): void {
  if (tool.openToAllPlans || context.workspace.limits.apiAccess) return;
  throw new ApiError(
    "plan_required",
    `${planRequiredMessage(`${tool.name} (API access)`, context.workspace.plan)} Meanwhile get_account and ` +
      "estimate_credits work, and videos can be cleaned in the dashboard.",
  );
}

/** Counts the call in the key's window of the tool's /v1 endpoint, as that endpoint's request would be. */
async function countCall(tool: McpTool, context: McpContext): Promise<void> {
  const [method = "", path = ""] = tool.endpoint.split(" ");
  const bucket = rateBucketFor(method, path);
  const decision = await countRequest(context.env, context.workspace.id, `key:${context.keyId}`, bucket);
  refuseIfLimited(decision, bucket);
}

/** Rate window, plan gate, validation, then the tool: the order of /v1. Every refusal is a tool error. */
async function callTool(context: McpContext, params: CallToolRequest["params"], extra: Extra) {
  const tool = toolsByName.get(params.name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
  try {
    await countCall(tool, context);
    checkPlan(tool, context);
    const parsed = tool.input.safeParse(params.arguments ?? {});
    if (!parsed.success) throw invalidParameter(parsed.error);
    const outcome = await tool.run(parsed.data, {
      ...context,
      reportProgress: progressReporter(params, extra),
    });
    return toolResult(outcome);
  } catch (error) {
    return toolError(error, context.requestId);
  }
}

/**
 * One MCP server per /mcp request (stateless). The SDK's low-level Server is used rather than
 * McpServer because McpServer validates arguments itself and answers a bad one with plain text;
 * here it is the API's invalid_parameter error naming the argument, like every other refusal.
 */
export function createMcpServer(context: McpContext): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: INSTRUCTIONS,
    // The default validator (ajv) compiles schemas with `new Function`, which workerd forbids.
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: LISTING }));
  server.setRequestHandler(
    CallToolRequestSchema,
    (request, extra): Promise<CallToolResult> => callTool(context, request.params, extra),
  );
  return server;
}
