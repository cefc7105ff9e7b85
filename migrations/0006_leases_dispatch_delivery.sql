-- Issue 23: a claim's lease token (every later call of the worker presents it), when a running job
-- last moved (heartbeats without progress stop extending its lease), jobs whose queue send failed
-- (the reaper sends only those again), and when an event's queued attempt is due (the sweep resends
-- pending events that have none).
ALTER TABLE `events` ADD `next_attempt_at` integer;--> statement-breakpoint
CREATE INDEX `events_delivery_due` ON `events` (`delivery_status`,`next_attempt_at`);--> statement-breakpoint
ALTER TABLE `jobs` ADD `lease_token` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `progressed_at` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `dispatch_pending` integer DEFAULT false NOT NULL;