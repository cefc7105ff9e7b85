CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`job_id` text,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_workspace_created` ON `events` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `events_job_type` ON `events` (`job_id`,`type`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`status` text NOT NULL,
	`stage` text,
	`progress` real DEFAULT 0 NOT NULL,
	`source` text NOT NULL,
	`upload_id` text,
	`video_url` text,
	`filename` text NOT NULL,
	`duration_seconds` real NOT NULL,
	`width` integer,
	`height` integer,
	`size_bytes` integer,
	`credits` integer NOT NULL,
	`credits_refunded` integer DEFAULT false NOT NULL,
	`texts` text,
	`metadata` text DEFAULT '{}' NOT NULL,
	`result_key` text,
	`result_size_bytes` integer,
	`error_code` text,
	`error_message` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_owner` text,
	`lease_expires_at` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `jobs_workspace_created` ON `jobs` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_workspace_status` ON `jobs` (`workspace_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `jobs_lease` ON `jobs` (`status`,`lease_expires_at`);--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`object_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`received_at` integer,
	`job_id` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `uploads_workspace` ON `uploads` (`workspace_id`,`created_at`);