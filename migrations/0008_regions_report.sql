-- Issue 27: a job's region hints (areas to erase whole), the engine's report, and its before/after picture,
-- stored and deleted with the result (edge/services/retention.ts).
ALTER TABLE `jobs` ADD `regions` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `report` text;--> statement-breakpoint
ALTER TABLE `jobs` ADD `picture_key` text;