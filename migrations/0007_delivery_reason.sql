-- Webhook deliveries (edge/webhooks/delivery.ts): why one is not done yet, and when the next attempt is due,
-- for the dashboard's Webhooks page and GET /v1/events.
ALTER TABLE `events` ADD `delivery_last_error` text;--> statement-breakpoint
ALTER TABLE `events` ADD `delivery_next_attempt_at` integer;