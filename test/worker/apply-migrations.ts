import { applyD1Migrations, env } from "cloudflare:test";

// Runs before every test file; applyD1Migrations skips what is already applied.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
