import type { Env as WorkerEnv } from "../../src/env";

declare global {
	namespace Cloudflare {
		interface Env extends WorkerEnv {
			TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
			UPGRADE_DB: D1Database;
			/** A scratch database for the meeting-link uniqueness migration test. */
			DUP_DB: D1Database;
			/** The local webhook receiver started by test/receiver/global-setup.ts. */
			WEBHOOK_RECEIVER_URL: string;
			/** The local OpenAI-compatible model server started by test/receiver/global-setup.ts. */
			MODEL_SERVER_URL: string;
		}
	}
}
