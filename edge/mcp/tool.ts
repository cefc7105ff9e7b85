import type { z } from "zod";
import type { Env } from "../env";
import type { WorkspaceRecord } from "../services/workspaces";
import type { MediaStorage } from "../storage/media-storage";

/** What every tool call of one /mcp request works with: the key's workspace and the request's id. */
export interface McpContext {
  env: Env;
  storage: MediaStorage;
  workspace: WorkspaceRecord;
  /** The API key's id: tool calls count in the key's /v1 rate windows. */
  keyId: string;
  /** The HTTP request's `req_…` id, also the `request_id` of tool errors. */
  requestId: string;
}

/** Sends an MCP progress notification when the client asked for them; does nothing otherwise. */
export type ReportProgress = (progress: number, message: string) => Promise<void>;

export interface ToolCall extends McpContext {
  reportProgress: ReportProgress;
}

/** What a tool answers: a short summary for the model and the same JSON the /v1 API returns. */
export interface ToolOutcome {
  summary: string;
  value: object;
}

export interface McpTool<Input extends z.ZodType = z.ZodType> {
  name: string;
  /** Written for a model: what the tool does and when to call it. */
  description: string;
  input: Input;
  /**
   * The /v1 endpoint the tool stands for ("POST /v1/jobs", "GET /v1/jobs/{id}"): each call counts in
   * that endpoint's rate window of the key, so a batch of calls in one POST is limited like /v1.
   */
  endpoint: string;
  /** Works without `limits.api_access` (the /v1 rule: account and estimate work on every plan). */
  openToAllPlans?: boolean;
  run(args: z.output<Input>, call: ToolCall): Promise<ToolOutcome>;
}

/** Infers a tool's argument type from its input schema. */
export function defineTool<Input extends z.ZodType>(tool: McpTool<Input>): McpTool<Input> {
  return tool;
}
