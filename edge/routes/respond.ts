import type { Context } from "hono";
import type { CreatedAnswer } from "../services/jobs";

/**
 * Sends a create answer (always 201: only successful creations are kept for replays); a replay of
 * an Idempotency-Key carries `Idempotent-Replayed: true` (spec).
 */
export function sendCreated<T extends object>(c: Context, answer: CreatedAnswer) {
  return c.json(JSON.parse(answer.body) as T, 201, answer.replayed ? { "Idempotent-Replayed": "true" } : {});
}
