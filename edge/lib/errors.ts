/** Every error the API can answer with: status and type follow from the code (spec, section Errors). */
export const ERROR_CODES = {
  invalid_json: { status: 400, type: "invalid_request_error" },
  invalid_parameter: { status: 400, type: "invalid_request_error" },
  invalid_api_key: { status: 401, type: "authentication_error" },
  insufficient_credits: { status: 402, type: "billing_error" },
  plan_required: { status: 403, type: "permission_error" },
  job_not_found: { status: 404, type: "not_found_error" },
  upload_not_found: { status: 404, type: "not_found_error" },
  // Not in the spec's table: an unknown path or method. Documented in the README.
  resource_not_found: { status: 404, type: "not_found_error" },
  upload_already_used: { status: 409, type: "conflict_error" },
  idempotency_conflict: { status: 409, type: "conflict_error" },
  // Not in the spec's table (README, decisions): the upload's file has not arrived (or never will).
  upload_incomplete: { status: 409, type: "conflict_error" },
  // Not in the spec's table: the local upload address itself refuses (signature, expiry, reuse).
  signature_invalid: { status: 403, type: "permission_error" },
  upload_already_received: { status: 409, type: "conflict_error" },
  video_too_large: { status: 413, type: "invalid_request_error" },
  // Not in the spec's table: a request body over the cap (edge/middleware/body-limit.ts).
  request_too_large: { status: 413, type: "invalid_request_error" },
  unsupported_format: { status: 422, type: "invalid_request_error" },
  unreadable_video: { status: 422, type: "invalid_request_error" },
  video_too_long: { status: 422, type: "invalid_request_error" },
  resolution_too_high: { status: 422, type: "invalid_request_error" },
  url_not_allowed: { status: 422, type: "invalid_request_error" },
  rate_limited: { status: 429, type: "rate_limit_error" },
  internal_error: { status: 500, type: "api_error" },
} as const;

/**
 * Codes only the dashboard's own API (/dashboard/api) answers with, in the same envelope; kept apart
 * so the public OpenAPI document (built from ERROR_CODES) lists only what /v1 can answer.
 */
export const DASHBOARD_ERROR_CODES = {
  session_required: { status: 401, type: "authentication_error" },
  invalid_credentials: { status: 401, type: "authentication_error" },
  csrf_check_failed: { status: 403, type: "permission_error" },
  owner_exists: { status: 409, type: "conflict_error" },
} as const;

const ALL_ERROR_CODES = { ...ERROR_CODES, ...DASHBOARD_ERROR_CODES };

export type ErrorCode = keyof typeof ALL_ERROR_CODES;
export type ErrorStatus = (typeof ALL_ERROR_CODES)[ErrorCode]["status"];

/** Thrown anywhere in a request; the error mapper turns it into the spec's envelope. */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  readonly type: string;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ALL_ERROR_CODES[code].status;
    this.type = ALL_ERROR_CODES[code].type;
  }
}

export interface ErrorBody {
  error: { type: string; code: string; message: string; param?: string; request_id: string };
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      request_id: requestId,
    },
  };
}
