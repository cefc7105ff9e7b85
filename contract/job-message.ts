import { z } from "zod";

/**
 * The jobs queue's message: the edge sends it (JOBS_QUEUE.send, contentType "json"); the GPU worker
 * receives it pushed (POST /jobs, local mode) or pulled (Cloudflare Queues' HTTP pull API), and the
 * edge's dead-letter consumer reads it back. Extra fields are kept, not refused: a newer edge may add
 * some before every worker knows them.
 */
export const JobMessageSchema = z.looseObject({
  job_id: z.string().min(1).max(100),
  workspace_id: z.string().min(1).max(100),
});
export type JobMessage = z.infer<typeof JobMessageSchema>;
