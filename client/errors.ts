import type { components } from "./openapi";

/** The API's error envelope (spec, Errors). */
export type ApiErrorBody = components["schemas"]["Error"]["error"];

/**
 * An answer of the API (or of a presigned storage address) that was not a success: the envelope's
 * type, code, message, param and request_id, plus the HTTP status.
 */
export class AdCleanError extends Error {
  override name = "AdCleanError";
  readonly type: string;
  /** The API's machine code; `unexpected_response` when the answer carried no envelope. */
  readonly code: ApiErrorBody["code"] | "unexpected_response";
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  readonly status: number;

  constructor(status: number, body: Partial<ApiErrorBody> & { message: string }) {
    super(body.message);
    this.status = status;
    this.type = body.type ?? (status >= 500 ? "api_error" : "invalid_request_error");
    this.code = body.code ?? "unexpected_response";
    this.param = body.param;
    this.requestId = body.request_id;
  }

  /** Builds the error from a failed answer, whether or not its body is the API's envelope. */
  static async from(response: Response): Promise<AdCleanError> {
    const text = await response.text().catch(() => "");
    let envelope: { error?: Partial<ApiErrorBody> } | undefined;
    try {
      envelope = JSON.parse(text);
    } catch {
      // Not JSON: a proxy's page or a storage provider's XML.
    }
    const error = envelope?.error;
    if (error && typeof error.message === "string") {
      return new AdCleanError(response.status, { ...error, message: error.message });
    }
    return new AdCleanError(response.status, {
      message: `HTTP ${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ""}`,
      request_id: response.headers.get("X-Request-Id") ?? undefined,
    });
  }

  /** The envelope's fields and the status, for `JSON.stringify`. */
  toJSON() {
    return {
      type: this.type,
      code: this.code,
      message: this.message,
      param: this.param,
      request_id: this.requestId,
      status: this.status,
    };
  }
}

/** The service could not be reached (refused, reset, timed out), still so after every retry. */
export class AdCleanConnectionError extends Error {
  override name = "AdCleanConnectionError";
}
