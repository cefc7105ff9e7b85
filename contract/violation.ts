import type { z } from "zod";

/**
 * A message or answer from the other side that breaks the contract: the first problem, with the
 * field it is about, so a drift between edge and worker reads as what it is in the logs.
 */
export class ContractViolationError extends Error {
  override name = "ContractViolationError";
}

/** `value` as `schema` reads it, or a ContractViolationError naming `what` and the first problem. */
export function parseContract<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? `${issue.path.join(".")}: ` : "";
  throw new ContractViolationError(
    `${what} breaks the edge-worker contract: ${field}${issue?.message ?? "invalid"}`,
  );
}
