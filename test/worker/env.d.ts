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
			/** The local git server (`git http-backend`) started by test/receiver/global-setup.ts. */
			GIT_SERVER_URL: string;
			/** The password its `/private/` repositories accept. */
			GIT_SERVER_TOKEN: string;
		}
	}
}
