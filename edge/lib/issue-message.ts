import type { z } from "zod";

type Issue = z.core.$ZodIssue;

/** Zod's own English texts ("Invalid input: expected string, received number"): rewritten as sentences. */
const ZOD_DEFAULT = /^(Invalid|Too (big|small)|Unrecognized key)/;

const UNITS: Record<string, string> = { string: "characters", array: "items", set: "items", file: "bytes" };

/** `uploadId` → `upload_id`: every field of the API is written in snake_case. */
const snakeCase = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();

function bound(issue: Issue & { code: "too_big" | "too_small" }, param: string): string {
  const limit = issue.code === "too_big" ? issue.maximum : issue.minimum;
  const words = issue.code === "too_big" ? "at most" : "at least";
  const unit = UNITS[issue.origin] ?? "";
  if (unit === "characters" && issue.code === "too_small" && Number(limit) === 1)
    return `'${param}' must not be empty.`;
  return `'${param}' must be ${issue.exact ? "exactly" : words} ${String(limit)}${unit ? ` ${unit}` : ""}.`;
}

/**
 * A validation problem as a sentence a user can act on, naming the field. A message a schema wrote
 * itself is kept; zod's generic texts are replaced.
 */
export function issueMessage(issue: Issue, param: string | undefined): string {
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    const suggestion = snakeCase(key) === key ? "" : ` Did you mean '${snakeCase(key)}'?`;
    return `Unknown field '${key}'.${suggestion} Fields are written in snake_case; see /v1/openapi.json.`;
  }
  if (!ZOD_DEFAULT.test(issue.message))
    return param === undefined || issue.message.includes(param)
      ? issue.message
      : `${param}: ${issue.message}`;
  if (param === undefined)
    return issue.code === "invalid_type"
      ? "The request body must be a JSON object."
      : "The request is not valid.";
  switch (issue.code) {
    case "invalid_type":
      return / received undefined$/.test(issue.message)
        ? `'${param}' is required (${issue.expected}).`
        : `'${param}' must be ${issue.expected === "array" || issue.expected === "object" ? "an" : "a"} ${issue.expected}.`;
    case "too_big":
    case "too_small":
      return bound(issue, param);
    case "invalid_value":
      return `'${param}' must be one of: ${issue.values.map(String).join(", ")}.`;
    case "invalid_format":
      return `'${param}' must be a valid ${issue.format === "url" ? "URL" : issue.format}.`;
    default:
      return `'${param}' is not valid.`;
  }
}
