import { z } from "zod";
import type { CreatedAnswer } from "../../services/jobs";

/** The Idempotency-Key header of POST /v1/uploads and /v1/jobs, as a tool argument. */
export const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .optional()
  .describe(
    "Optional key (up to 255 characters) that makes a retry safe: the same key with the same arguments within 24 hours " +
      "returns the first answer instead of creating a second one.",
  );

export function replayNote(answer: CreatedAnswer): string {
  return answer.replayed ? " (replayed: this idempotency_key was used before, nothing new was created)" : "";
}
