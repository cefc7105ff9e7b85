-- Retention (edge/services/retention.ts): when an upload's file was deleted, and the indexes the
-- scheduled sweep reads finished jobs and received uploads by.
ALTER TABLE `uploads` ADD `purged_at` integer;--> statement-breakpoint
CREATE INDEX `uploads_retention` ON `uploads` (`purged_at`,`received_at`);--> statement-breakpoint
CREATE INDEX `jobs_retention` ON `jobs` (`status`,`finished_at`);
