/**
 * Where a worker's jobs come from. Both transports hand each job id to the same JobIntake (free
 * slot, claim, run): push (server.ts) is offered jobs over HTTP by the local queue consumer; pull
 * (pull-source.ts) asks Cloudflare Queues' HTTP pull API for as many jobs as it has free slots.
 */
export interface JobSource {
  /** Starts taking jobs. */
  start(): Promise<void>;
  /** Stops taking new jobs; running ones carry on. */
  stop(): Promise<void>;
}
