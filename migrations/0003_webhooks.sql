CREATE TABLE `webhook_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`event_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`url` text NOT NULL,
	`response_status` integer,
	`latency_ms` integer NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_event` ON `webhook_attempts` (`event_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `events` ADD `delivery_status` text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `delivery_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `events` ADD `delivered_at` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `previous_signing_secret_sealed` text;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `previous_secret_expires_at` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `webhook_disabled_reason` text;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `webhook_failing_since` integer;