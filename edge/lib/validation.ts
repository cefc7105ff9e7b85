import type { Context } from "hono";
import type { z } from "zod";
import { ApiError } from "./errors";
import { issueMessage } from "./issue-message";

/** Headers arrive lower-cased; `param` spells them as the API's other answers do (the 409's Idempotency-Key). */
const HEADER_PARAMS: Record<string, string> = { "idempotency-key": "Idempotency-Key" };

/** The parameter an issue is about: its path, or for an unknown field that field's name. */
function paramOf(issue: z.core.$ZodIssue): string | undefined {
  const path = [
    ...issue.path.map(String),
    ...(issue.code === "unrecognized_keys" ? issue.keys.slice(0, 1) : []),
  ];
  if (path.length === 0) return undefined;
  const joined = path.join(".");
  return HEADER_PARAMS[joined] ?? joined;
}

/** The first problem of a failed zod parse, as a 400 invalid_parameter naming the parameter. */
export function invalidParameter(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  if (!issue) return new ApiError("invalid_parameter", "The request is not valid.");
  const param = paramOf(issue);
  return new ApiError("invalid_parameter", issueMessage(issue, param), param);
}

/** Default hook of every OpenAPI route: validation failures become the spec's 400. */
export function validationHook(result: { success: boolean; error?: unknown }): void {
  if (!result.success) throw invalidParameter(result.error as z.ZodError);
}

/** Reads and validates a JSON body outside OpenAPI routes (the admin API). */
export async function parseJsonBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new ApiError("invalid_json", "The request body must be valid JSON.");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidParameter(parsed.error);
  return parsed.data;
}

/** Validates the query string outside OpenAPI routes (the dashboard's API). */
export function parseQuery<T extends z.ZodType>(c: Context, schema: T): z.infer<T> {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw invalidParameter(parsed.error);
  return parsed.data;
}
