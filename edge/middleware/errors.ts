import type { ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppBindings } from "../env";
import { ApiError, errorBody } from "../lib/errors";

/** Turns anything thrown into the spec's error envelope; unknown errors never show their details. */
function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 400 || err.status === 415) {
      return new ApiError(
        "invalid_json",
        "The request body must be valid JSON sent as 'Content-Type: application/json'.",
      );
    }
    if (err.status === 404) return new ApiError("resource_not_found", "No such resource.");
  }
  return new ApiError(
    "internal_error",
    "Something went wrong on our side. Retry with the same Idempotency-Key.",
  );
}

export const onError: ErrorHandler<AppBindings> = (err, c) => {
  const apiError = toApiError(err);
  if (apiError.code === "internal_error") {
    // Only the error's own text and the request id: never headers, keys or bodies.
    console.error(JSON.stringify({ level: "error", request_id: c.var.requestId, error: String(err) }));
  }
  return c.json(
    errorBody(apiError, c.var.requestId),
    apiError.status as ContentfulStatusCode,
    apiError.headers,
  );
};

export const onNotFound: NotFoundHandler<AppBindings> = (c) =>
  onError(new ApiError("resource_not_found", `No endpoint answers ${c.req.method} ${c.req.path}.`), c);
