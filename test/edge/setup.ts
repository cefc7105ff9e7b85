import { applyD1Migrations, env } from "cloudflare:test";

// Real migrations on the test's D1 (idempotent: applied ones are skipped).
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
