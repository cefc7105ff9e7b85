import { z } from "@hono/zod-openapi";
import { ERROR_CODES, type ErrorStatus } from "../lib/errors";

export const ErrorSchema = z
  .object({
    error: z.object({
      type: z.string().openapi({ example: "invalid_request_error" }),
      code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES]),
      message: z.string(),
      param: z.string().optional(),
      request_id: z.string().openapi({ example: "req_4fQ2m9TqZkP1xW8bL0aYcD3e" }),
    }),
  })
  .openapi("Error");

const header = (description: string, type: "string" | "integer" = "string") => ({
  schema: { type },
  description,
});

/** Headers on every answer of /v1 (spec, Endpoints and Limits). */
export const STANDARD_HEADERS = {
  "X-Request-Id": header("req_<id>; the same value as error.request_id"),
  "X-RateLimit-Limit": header("Requests allowed in the current one-minute window", "integer"),
  "X-RateLimit-Remaining": header("Requests left in the current window", "integer"),
  "X-RateLimit-Reset": header("Unix time (seconds) at which the window ends", "integer"),
};

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: "Invalid request (invalid_json, invalid_parameter)",
  401: "Missing, unknown or revoked API key (invalid_api_key)",
  402: "Not enough credits (insufficient_credits)",
  403: "The plan has no API access (plan_required)",
  404: "Not found",
  409: "Conflict",
  413: "File larger than 2 GB (video_too_large), or a request body over 2 MiB (request_too_large)",
  422: "The video cannot be processed",
  429: "Rate limited (rate_limited); see Retry-After",
  500: "Internal error (internal_error)",
};

/** OpenAPI response objects for the error statuses a route can answer with. */
export function errorResponses(...statuses: ErrorStatus[]) {
  const all: ErrorStatus[] = [...new Set<ErrorStatus>([...statuses, 401, 429, 500])];
  return Object.fromEntries(
    all.map((status) => [
      status,
      {
        description: ERROR_DESCRIPTIONS[status],
        headers:
          status === 429
            ? { ...STANDARD_HEADERS, "Retry-After": header("Seconds to wait before retrying", "integer") }
            : STANDARD_HEADERS,
        content: { "application/json": { schema: ErrorSchema } },
      },
    ]),
  );
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, headers: STANDARD_HEADERS, content: { "application/json": { schema } } };
}

/** `limit` of a list endpoint: 1 to 100, default 20 (spec, Limits). */
export const pageLimitParam = z
  .string()
  .regex(/^\d+$/, "limit must be a whole number from 1 to 100")
  .transform(Number)
  .refine((value) => value >= 1 && value <= 100, "limit must be a whole number from 1 to 100")
  .optional()
  .openapi({ param: { name: "limit", in: "query" }, type: "integer", minimum: 1, maximum: 100, default: 20 });
