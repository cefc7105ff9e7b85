import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError, errorBody } from "../lib/errors";
import type { ToolOutcome } from "./tool";

/** A tool's answer: the summary, then the JSON as text (for clients that ignore structuredContent). */
export function toolResult(outcome: ToolOutcome): CallToolResult {
  return {
    content: [
      { type: "text", text: outcome.summary },
      { type: "text", text: JSON.stringify(outcome.value) },
    ],
    structuredContent: outcome.value as Record<string, unknown>,
  };
}

/** Unknown errors are logged with the request id only and never show their details, as in the API. */
function asApiError(error: unknown, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  console.error(JSON.stringify({ level: "error", request_id: requestId, error: String(error) }));
  return new ApiError(
    "internal_error",
    "Something went wrong on our side. Retry with the same idempotency_key.",
  );
}

/**
 * A refused call as a tool error (`isError`) rather than a JSON-RPC error, so the model reads it and
 * can correct itself; it carries the API's error envelope.
 */
export function toolError(error: unknown, requestId: string): CallToolResult {
  const apiError = asApiError(error, requestId);
  const param = apiError.param === undefined ? "" : ` (param: ${apiError.param})`;
  return {
    isError: true,
    content: [{ type: "text", text: `${apiError.code} (${apiError.type}): ${apiError.message}${param}` }],
    structuredContent: { ...errorBody(apiError, requestId) },
  };
}
