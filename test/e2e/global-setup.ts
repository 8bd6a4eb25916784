/**
 * Tier 3 (README.md, Tests and benchmarks): the real Worker under `wrangler dev` with local D1/R2/Durable Objects,
 * started once for the end-to-end project. Tests reach it only through HTTP and WebSockets.
 * The recording receiver stands in for the outside world: it receives webhooks and the
 * bot host's spawn calls, so a test can play the bot over the real channel.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { tinyModel } from "../../bot-host/speech/test/tiny-model.ts";
import { localSpeech, modelsDir } from "../../scripts/local-speech.mjs";
import {
	CAPACITY_GATE_OFF,
	mintHostCredential,
	startBotHost,
	startGateway,
	startSpawnQueue,
	stopBotHost,
	waitForHealth,
} from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { startGitServer } from "../receiver/git-server.ts";
import { GOOGLE_TEST_CLIENT, MICROSOFT_TEST_CLIENT } from "../receiver/global-setup.ts";
import { startGoogleCalendarServer } from "../receiver/google-calendar-server.ts";
import { startGraphCalendarServer } from "../receiver/graph-calendar-server.ts";
import { startModelServer } from "../receiver/model-server.ts";
import { startWebhookReceiver } from "../receiver/webhook-receiver.ts";

declare module "vitest" {
	export interface ProvidedContext {
		gatewayUrl: string;
		adminToken: string;
		receiverUrl: string;
		botGatewayUrl: string;
		sandboxUrl: string;
		modelServerUrl: string;
		gitServerUrl: string;
		gitServerToken: string;
		/** The operator's FLEET_METRICS_TOKEN at the simulated gateway (join health, fleet metrics). */
		fleetMetricsToken: string;
		/** The local Google Calendar and Microsoft Graph the real bots' gateway signs in to (calendars you sign into). */
		googleCalendarUrl: string;
		graphCalendarUrl: string;
		/** The bot host the tests play at the simulated gateway (simulated-bot.ts), and its credential. */
		simulatedHost: { id: string; credential: string };
	}
}

/**
 * Two gateways share the admin token: one whose bot host is the recording receiver (tests
 * play the bot over the real channel), and one whose spawn queue a real bot host pulls,
 * whose Chromium bots join the platform sandbox.
 */
export default async function setup(project: TestProject) {
	const receiver = await startWebhookReceiver();
	// The users' own model: an OpenAI-compatible streaming server, scripted per test.
	const model = await startModelServer();
	// An external git host (`git http-backend`) for swap.
	const gitServer = await startGitServer();
	const adminToken = `adm_${randomBytes(18).toString("base64url")}`;
	const fleetMetricsToken = randomBytes(18).toString("base64url");
	const stateDirs: string[] = [];
	const gatewayWith = async (port: number, bots: Record<string, string>) => {
		const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-e2e-"));
		stateDirs.push(stateDir);
		const child = await startGateway({
			port,
			stateDir,
			quiet: true,
			vars: {
				ADMIN_API_TOKEN: adminToken,
				FLEET_METRICS_TOKEN: fleetMetricsToken,
				SECRETS_KEY: randomBytes(32).toString("base64"),
				...bots,
				OUTBOUND_ALLOW_PRIVATE: "true",
				GATEWAY_RATE_LIMIT_RPS: "1000",
				GATEWAY_RATE_LIMIT_BURST: "1000",
				// agent.test.ts waits for a routine's real alarm: every minute, below the deployment's 5-minute floor.
				ROUTINE_MIN_INTERVAL_MINUTES: "1",
			},
		});
		return { child, url: `http://127.0.0.1:${port}` };
	};
	// The real bots' gateway publishes spawn tickets to a local queue, and one bot host pulls them
	// and claims at that gateway, as in production (docs/bot-fleet.md).
	const spawnQueue = await startSpawnQueue();
	const [simulatedPort, realPort, botHostPort, sandboxPort, speechPort] = [
		await freePort(),
		await freePort(),
		await freePort(),
		await freePort(),
		await freePort(),
	];
	const realUrl = `http://127.0.0.1:${realPort}`;
	// Calendar sign-in is configured on the real bots' gateway only, so the simulated one shows a
	// deployment without it; the providers know that gateway's callback as its registered redirect URI.
	const callback = [`${realUrl}/calendars/oauth/callback`];
	const google = await startGoogleCalendarServer({ ...GOOGLE_TEST_CLIENT, redirectUris: callback });
	const graph = await startGraphCalendarServer({ ...MICROSOFT_TEST_CLIENT, redirectUris: callback });
	const calendarSignIn = {
		GOOGLE_CLIENT_ID: GOOGLE_TEST_CLIENT.clientId,
		GOOGLE_CLIENT_SECRET: GOOGLE_TEST_CLIENT.clientSecret,
		GOOGLE_ACCOUNTS_BASE_URL: google.url,
		GOOGLE_OAUTH_BASE_URL: google.url,
		GOOGLE_API_BASE_URL: google.url,
		MICROSOFT_CLIENT_ID: MICROSOFT_TEST_CLIENT.clientId,
		MICROSOFT_CLIENT_SECRET: MICROSOFT_TEST_CLIENT.clientSecret,
		MICROSOFT_LOGIN_BASE_URL: graph.url,
		GRAPH_BASE_URL: graph.url,
	};
	const [simulated, real] = await Promise.all([
		// The receiver stands in for the spawn queue's HTTP API; tests claim as the host (simulated-bot.ts).
		gatewayWith(simulatedPort, { SPAWN_QUEUE_URL: `${receiver.url}/spawn-queue/client/v4/accounts/e2e/queues/bot-spawns` }),
		gatewayWith(realPort, { ...spawnQueue.gatewayVars, ...calendarSignIn }),
	]);
	// Each host has a credential of its own, minted by the admin route as an operator would.
	const simulatedHostId = "e2e-simulated-host";
	const [simulatedHostCredential, realHostCredential] = await Promise.all([
		mintHostCredential(simulated.url, adminToken, simulatedHostId),
		mintHostCredential(realUrl, adminToken, "e2e-host-1"),
	]);
	// The speech service in the box, found and started as `npm start` does (a model file in the
	// local state's models folder), on the whisper model the tests generate (random weights): the
	// real bot host reaches it at SPEECH_URL for bots whose engine is `builtin`.
	const speechState = mkdtempSync(path.join(os.tmpdir(), "meetbot-e2e-speech-"));
	stateDirs.push(speechState);
	mkdirSync(modelsDir(speechState), { recursive: true });
	writeFileSync(path.join(modelsDir(speechState), "ggml-tiny-test.bin"), tinyModel());
	const { running: speech, missing } = await localSpeech({ stateDir: speechState, port: speechPort, waitForHealth, env: {} });
	if (!speech) throw new Error(`the speech service did not start: ${missing}`);
	// Started just before the host, and stopped if the host does not start, so it does not outlive a failed setup.
	const botHost = await startBotHost({
		port: botHostPort,
		credential: realHostCredential,
		sandboxPort,
		quiet: true,
		id: "e2e-host-1",
		gatewayUrl: realUrl,
		queueUrl: spawnQueue.url,
		queueToken: spawnQueue.token,
		// CI's shared cores run a load far above their count, and other work presses them; the tests keep
		// their Chromiums few themselves. (A limit of 100% is never exceeded.)
		env: { ...CAPACITY_GATE_OFF, SPEECH_URL: speech.url },
	}).catch((err: unknown) => {
		speech.child.kill("SIGTERM");
		throw err;
	});
	project.provide("gatewayUrl", simulated.url);
	project.provide("botGatewayUrl", real.url);
	project.provide("sandboxUrl", `http://127.0.0.1:${sandboxPort}/__sandbox`);
	project.provide("adminToken", adminToken);
	project.provide("fleetMetricsToken", fleetMetricsToken);
	project.provide("receiverUrl", receiver.url);
	project.provide("modelServerUrl", model.url);
	project.provide("gitServerUrl", gitServer.url);
	project.provide("gitServerToken", gitServer.token);
	project.provide("googleCalendarUrl", google.url);
	project.provide("graphCalendarUrl", graph.url);
	project.provide("simulatedHost", { id: simulatedHostId, credential: simulatedHostCredential });
	return async () => {
		await stopBotHost(botHost);
		speech.child.kill("SIGTERM");
		simulated.child.kill("SIGTERM");
		real.child.kill("SIGTERM");
		await spawnQueue.queue.close();
		await receiver.close();
		await model.close();
		await gitServer.close();
		await google.close();
		await graph.close();
		for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
	};
}
