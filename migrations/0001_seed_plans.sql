-- The plan table (README, "Plans"). 150 credits buy one minute of video.
INSERT INTO `plans` (`id`, `name`, `monthly_credits`, `concurrent_jobs`, `active_jobs`, `api_access`, `webhooks`, `retention_days`, `sort_order`) VALUES
  ('starter', 'Starter', 1500, 1, 5, 0, 0, 7, 1),
  ('growth', 'Growth', 9000, 3, 25, 1, 1, 30, 2),
  ('scale', 'Scale', 45000, 10, 100, 1, 1, 90, 3);
