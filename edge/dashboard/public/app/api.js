// @ts-check
/** The dashboard's JSON API (/dashboard/api): the session cookie rides along; writes carry the CSRF token. */

export const SIGNED_OUT_EVENT = "adclean:signed-out";

let csrfToken = "";

/** @param {string} token */
export function useCsrfToken(token) {
  csrfToken = token;
}

/** A refused request: the HTTP status and the error envelope's code and message. */
export class ApiFailure extends Error {
  /** @param {number} status @param {string} code @param {string} message */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * @param {string} method
 * @param {string} path under /dashboard/api
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export async function call(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRF-Token"] = csrfToken;
  const response = await fetch(`/dashboard/api${path}`, {
    method,
    headers,
    credentials: "same-origin",
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 204) return null;
  const answer = await response.json().catch(() => null);
  if (!response.ok) {
    const error = answer?.error ?? {};
    const failure = new ApiFailure(
      response.status,
      error.code ?? "http_error",
      error.message ?? `HTTP ${response.status}`,
    );
    if (failure.code === "session_required") window.dispatchEvent(new Event(SIGNED_OUT_EVENT));
    throw failure;
  }
  return answer;
}

/**
 * Sends a file to its presigned address with a PUT, reporting progress (XMLHttpRequest: fetch has
 * no upload progress).
 * @param {{ upload_url: string, headers: Record<string, string> }} upload
 * @param {File} file
 * @param {(fraction: number) => void} onProgress
 * @returns {Promise<void>}
 */
export function putFile(upload, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("PUT", upload.upload_url);
    for (const [name, value] of Object.entries(upload.headers)) request.setRequestHeader(name, value);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.addEventListener("load", () => {
      if (request.status >= 200 && request.status < 300) resolve();
      else reject(new Error(`The upload was refused (HTTP ${request.status}).`));
    });
    request.addEventListener("error", () => reject(new Error("The upload failed: the connection was lost.")));
    request.send(file);
  });
}
