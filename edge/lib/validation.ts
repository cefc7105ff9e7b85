import type { Context } from "hono";
import type { z } from "zod";
import { ApiError } from "./errors";

/** The first problem of a failed zod parse, as a 400 invalid_parameter naming the parameter. */
export function invalidParameter(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const param = issue?.path.length ? issue.path.map(String).join(".") : undefined;
  const message = issue ? `${param ? `${param}: ` : ""}${issue.message}` : "Invalid request.";
  return new ApiError("invalid_parameter", message, param);
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
