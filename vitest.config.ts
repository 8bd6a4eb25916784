import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Three tiers (README.md, Tests and benchmarks): Worker and Durable Objects inside workerd, the bot host in
// Node against the sandbox, and black-box end-to-end runs through `wrangler dev`.
export default defineConfig(async () => {
	const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
	return {
		test: {
			// Two files at a time even on two cores (vitest's default would be one): much of the suite waits on
			// real clocks, Chromium and wrangler dev, so a second file fills the idle time.
			maxWorkers: Math.max(2, availableParallelism() - 1),
			projects: [
				{
					plugins: [
						// A function so that values provided by globalSetup (the webhook receiver) can be injected.
						cloudflareTest(({ inject }) => ({
							wrangler: { configPath: "./wrangler.toml" },
							miniflare: {
								bindings: {
									TEST_MIGRATIONS: migrations,
									ADMIN_API_TOKEN: "test-admin-token-0123456789",
									SECRETS_KEY: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
									// Where bots reach the gateway; the tests' own requests use this origin too.
									PUBLIC_BASE_URL: "https://gateway.test",
									OUTBOUND_ALLOW_PRIVATE: "true",
									WEBHOOK_RECEIVER_URL: inject<string>("webhookReceiverUrl"),
									// The receiver stands in for the spawn queue's HTTP API: it records each published ticket
									// (scripted answers model an outage); the tests play the host and claim through SELF.
									SPAWN_QUEUE_URL: `${inject<string>("webhookReceiverUrl")}/spawn-queue/client/v4/accounts/test/queues/bot-spawns`,
									SPAWN_QUEUE_TOKEN: "test-spawn-queue-token",
									BOT_REPORT_TIMEOUT_S: "5",
									// A waiting meeting's refresh (and its note on /ws and webhooks) only when a test fires it: the
									// fleet's reports are shared by every file, so a timed refresh would put notes into others' feeds.
									BOT_PLACEMENT_REFRESH_S: "3600",
									// Agent chat streams get a keepalive this often, so a test sees one without a long pause.
									AGENT_SSE_KEEPALIVE_MS: "500",
									// A meeting summary's model call and transcript, small enough that a test passes each bound quickly.
									SUMMARY_TIMEOUT_S: "5",
									SUMMARY_MAX_TRANSCRIPT_CHARS: "2000",
									// The local OpenAI-compatible model server (test/receiver/model-server.ts).
									MODEL_SERVER_URL: inject<string>("modelServerUrl"),
									// The local git server (test/receiver/git-server.ts) and the token of its private repositories.
									GIT_SERVER_URL: inject<string>("gitServerUrl"),
									GIT_SERVER_TOKEN: inject<string>("gitServerToken"),
									// Clone limits small enough that each of the git server's bombs passes one by a little
									// (test/receiver/git-bombs.ts): 2 MB unpacked, 1 MB a file, 200 objects, 200 files.
									WORKSPACE_CLONE_MAX_UNPACKED_BYTES: String(2 * 1024 * 1024),
									WORKSPACE_CLONE_MAX_FILE_BYTES: String(1024 * 1024),
									WORKSPACE_CLONE_MAX_OBJECTS: "200",
									WORKSPACE_CLONE_MAX_FILES: "200",
									// Deployment credentials without deployment URLs: they must never reach an account's own URL.
									DEFAULT_MODEL_API_KEY: "deployment-model-key-must-stay-home",
									TRANSCRIPTION_TOKEN: "deployment-stt-token-must-stay-home",
									DEFAULT_WEBHOOK_SECRET: "deployment-webhook-secret-must-stay-home",
									// Calendars you sign into: the deployment's OAuth clients (test/receiver/global-setup.ts) and the
									// local Google Calendar and Graph servers in place of the real hosts.
									GOOGLE_CLIENT_ID: "google-test-client.apps.googleusercontent.com",
									GOOGLE_CLIENT_SECRET: "google-client-secret-must-stay-home",
									GOOGLE_ACCOUNTS_BASE_URL: inject<string>("googleCalendarUrl"),
									GOOGLE_OAUTH_BASE_URL: inject<string>("googleCalendarUrl"),
									GOOGLE_API_BASE_URL: inject<string>("googleCalendarUrl"),
									MICROSOFT_CLIENT_ID: "00000000-0000-4000-8000-00000000cafe",
									MICROSOFT_CLIENT_SECRET: "microsoft-client-secret-must-stay-home",
									MICROSOFT_LOGIN_BASE_URL: inject<string>("graphCalendarUrl"),
									GRAPH_BASE_URL: inject<string>("graphCalendarUrl"),
									// The local streaming speech providers (test/receiver/deepgram-server.ts, assemblyai-server.ts).
									DEEPGRAM_URL: inject<string>("deepgramUrl"),
									ASSEMBLYAI_URL: inject<string>("assemblyaiUrl"),
								},
								d1Databases: { UPGRADE_DB: "upgrade-db", DUP_DB: "dup-db" },
							},
						})),
					],
					test: {
						name: "worker",
						testTimeout: 30_000,
						// Files share one workerd per vitest worker instead of starting one each (most of the tier's time
						// was start-up and transform). They share its D1, R2 and Durable Objects too, so a test reads only
						// what it made: ids keep counting across files, and nothing asserts on a whole table or bucket.
						isolate: false,
						globalSetup: ["./test/receiver/global-setup.ts"],
						include: ["test/worker/**/*.test.ts", "src/**/*.test.ts", "durable-objects/**/*.test.ts"],
						setupFiles: ["./test/worker/apply-migrations.ts"],
					},
				},
				{
					test: {
						// Pure rules (parsers, the status machine, signatures, the docs' tables) need no workerd: plain Node.
						name: "unit",
						environment: "node",
						include: ["test/unit/**/*.test.ts"],
						isolate: false,
					},
				},
				{
					test: {
						name: "bot-host",
						environment: "node",
						include: ["bot-host/**/*.test.ts"],
						testTimeout: 60_000,
						hookTimeout: 60_000,
					},
				},
				{
					test: {
						// The dashboard's pure parts (formatting, parsing); its pages are tested in Chromium by the e2e tier.
						name: "dashboard",
						environment: "node",
						include: ["dashboard/src/**/*.test.ts"],
					},
				},
				{
					// The example webhook consumer (examples/webhook-consumer) inside workerd, fed the real, signed
					// deliveries of one meeting that its globalSetup drives through a gateway under wrangler dev.
					plugins: [
						cloudflareTest(({ inject }) => ({
							wrangler: { configPath: "./examples/webhook-consumer/wrangler.toml" },
							miniflare: {
								bindings: {
									MEETBOT_URL: inject<string>("consumerGatewayUrl"),
									MEETBOT_API_KEY: inject<string>("consumerApiKey"),
									WEBHOOK_SECRET: inject<string>("consumerWebhookSecret"),
								},
							},
						})),
					],
					test: {
						name: "webhook-consumer",
						testTimeout: 30_000,
						hookTimeout: 180_000,
						globalSetup: ["./examples/webhook-consumer/test/global-setup.ts"],
						include: ["examples/webhook-consumer/test/**/*.test.ts"],
					},
				},
				{
					test: {
						name: "e2e",
						globalSetup: ["./test/e2e/global-setup.ts"],
						environment: "node",
						include: ["test/e2e/**/*.test.ts"],
						testTimeout: 120_000,
						hookTimeout: 180_000,
						fileParallelism: false,
					},
				},
			],
		},
	};
});
