import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../lib/errors";

/**
 * The largest JSON body any API takes, a job with 500 texts of 500 characters and its metadata, stays
 * under 1.6 MB even written as \uXXXX escapes, so 2 MiB leaves room and still bounds what an unkeyed
 * caller (the dashboard's sign-in) can make the Worker buffer and parse.
 */
export const MAX_JSON_BODY_BYTES = 2 * 1024 * 1024;

/** Refuses a larger body with 413 before it is read whole (Content-Length) or while it streams. */
export const jsonBodyLimit = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: () => {
    throw new ApiError("request_too_large", "The request body is larger than 2 MiB (2,097,152 bytes).");
  },
});
