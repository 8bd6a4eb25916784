/**
 * Node side of the `webhook-consumer` project: produces REAL webhook deliveries for the consumer
 * Worker's tests. One gateway under `wrangler dev` (no bot host, no Chromium) whose bot host and
 * webhook target are the recording receiver; an account whose webhook is signed with a secret;
 * a meeting driven to `completed` by playing the bot over the real channel, when the tests ask.
 * The deliveries are handed to the tests exactly as they arrived (headers and raw body), with the gateway URL and
 * a key, so the consumer (inside workerd) verifies them and fetches the transcript from this
 * same gateway.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import type WebSocketType from "ws";
import { mintHostCredential, startGateway } from "../../../scripts/local-stack.mjs";
import { freePort } from "../../../scripts/ports.mjs";
import { buildClient } from "../../../scripts/toolchain.mjs";
import type { SpawnTicket } from "../../../src/bot-channel/fleet.ts";
import type { SpawnRequest } from "../../../src/bot-channel/protocol.ts";
import { type ReceivedRequest, startWebhookReceiver } from "../../../test/receiver/webhook-receiver.ts";
import { eventually, until } from "../../../test/shared/wait.ts";

// Loaded with require: this project resolves imports with the worker conditions, which pick ws's browser stub.
const WebSocket = createRequire(import.meta.url)("ws") as typeof WebSocketType;

// What it provides is declared in test/provided.d.ts (the workerd side reads it with inject()).

async function api<T>(base: string, method: string, pathname: string, headers: Record<string, string>, body?: unknown): Promise<T> {
	const res = await fetch(`${base}${pathname}`, {
		method,
		headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text}`);
	return (text ? JSON.parse(text) : undefined) as T;
}

/** Plays the bot on the meeting's channel (docs/bot-channel.md): numbered messages, each acked. */
async function playBot(spawn: SpawnRequest) {
	const ws = await new Promise<WebSocketType>((resolve, reject) => {
		const socket = new WebSocket(spawn.channel.url, { headers: { Authorization: `Bearer ${spawn.channel.token}` } });
		socket.once("open", () => resolve(socket));
		socket.once("error", reject);
	});
	const received: Record<string, unknown>[] = [];
	ws.on("message", (data) => received.push(JSON.parse(String(data))));
	let seq = 0;
	const send = async (message: Record<string, unknown>) => {
		seq += 1;
		const mine = seq;
		ws.send(JSON.stringify({ ...message, seq: mine }));
		await until(`ack ${mine}`, () => received.some((m) => m.type === "ack" && m.seq === mine));
	};
	ws.send(JSON.stringify({ type: "hello", last_acked_seq: 0 }));
	await until("hello ack", () => received.some((m) => m.type === "ack"));
	return { ws, send, received };
}

export default async function setup(project: TestProject) {
	// The consumer imports @meetbot/client through its package exports (packages/client/dist).
	buildClient();
	const receiver = await startWebhookReceiver();
	const adminToken = `adm_${randomBytes(18).toString("base64url")}`;
	const port = await freePort();
	const queuePath = "/spawn-queue/client/v4/accounts/consumer/queues/bot-spawns";
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-consumer-"));
	const gateway = await startGateway({
		port,
		stateDir,
		quiet: true,
		vars: {
			ADMIN_API_TOKEN: adminToken,
			SECRETS_KEY: randomBytes(32).toString("base64"),
			// The receiver stands in for the spawn queue; the meeting below claims as the bot host.
			SPAWN_QUEUE_URL: `${receiver.url}${queuePath}`,
			OUTBOUND_ALLOW_PRIVATE: "true",
		},
	});
	let runner: Server | undefined;
	const stop = async () => {
		runner?.close();
		gateway.kill("SIGTERM");
		await receiver.close();
		rmSync(stateDir, { recursive: true, force: true });
	};
	try {
		const base = `http://127.0.0.1:${port}`;
		const admin = { "X-Admin-API-Key": adminToken };
		const user = await api<{ id: number }>(base, "POST", "/admin/users", admin, { email: `consumer-${Date.now()}@example.com` });
		const { token: key } = await api<{ token: string }>(base, "POST", `/admin/users/${user.id}/tokens?scopes=bot,tx`, admin);
		const auth = { "X-API-Key": key };
		const hostId = "consumer-test-host";
		const hostCredential = await mintHostCredential(base, adminToken, hostId);
		const secret = `whsec-${randomBytes(18).toString("base64url")}`;
		const hookPath = "/hooks/consumer";
		await api(base, "PUT", "/user/webhook", auth, {
			webhook_url: `${receiver.url}${hookPath}`,
			webhook_secret: secret,
			webhook_events: {
				"meeting.started": true,
				"meeting.completed": true,
				"meeting.status_change": true,
				"transcript.segments": true,
				"participant.joined": true,
				"participant.left": true,
			},
		});

		/**
		 * Plays one meeting to `completed` and returns the deliveries its webhooks made. Run when
		 * the test file asks (POST to the runner below), not here: the signatures' timestamps must
		 * be fresh when the consumer checks its replay window, however long other projects ran first.
		 */
		const playMeeting = async () => {
			const nativeId = `93987${String(Date.now()).slice(-8)}`;
			const meeting = await api<{ id: number }>(base, "POST", "/bots", auth, { platform: "teams", native_meeting_id: nativeId });
			// The ticket the room published, as the queue (the receiver) got it: a claim must present it.
			const ticket = await eventually("the spawn ticket", async () => {
				const { requests } = await api<{ requests: ReceivedRequest[] }>(
					receiver.url,
					"GET",
					`/__control/requests?path=${encodeURIComponent(`${queuePath}/messages`)}`,
					{},
				);
				return requests.map((r) => (JSON.parse(r.body) as { body: SpawnTicket }).body).find((t) => t.meeting_id === meeting.id);
			});
			// A host claims only the free slots it last reported (docs/bot-fleet.md#host-credentials).
			const report = { host_id: hostId, version: "test", slots: 1, running: 0, launching: 0, free: 1, draining: false };
			await api(
				base,
				"POST",
				"/internal/bot-hosts/reports",
				{ authorization: `Bearer ${hostCredential}` },
				{
					...report,
					mem_available_mb: 8000,
					load1: 0,
				},
			);
			const spawn = await api<SpawnRequest>(
				base,
				"POST",
				"/internal/bot-hosts/claims",
				{ authorization: `Bearer ${hostCredential}` },
				{ meeting_id: meeting.id, attempt: 1, host_id: hostId, version: "test", ticket },
			);
			const bot = await playBot(spawn);
			for (const status of ["joining", "active"]) await bot.send({ type: "status", status, timestamp: new Date().toISOString() });
			const participant = (event: "join" | "leave", name: string) =>
				bot.send({ type: "participant", event, participant: { id: name, name }, timestamp: new Date().toISOString() });
			const line = (i: number, speaker: string, text: string) =>
				bot.send({
					type: "segment",
					segment: {
						segment_id: `s-${i}`,
						speaker,
						speaker_source: "caption",
						text,
						start: i * 2,
						end: i * 2 + 1.5,
						language: "en",
						completed: true,
					},
				});
			// Live events: Sam joins, two lines, Sam leaves (which sends the open batch first), then the
			// first line is corrected (its speaker named in full) and goes again, as version 2, in a later batch.
			await participant("join", "Sam");
			const lines = [
				["Priya", "The consumer stores this transcript."],
				["Sam", "Fetched with the typed client."],
			] as const;
			for (const [i, [speaker, text]] of lines.entries()) await line(i, speaker, text);
			await participant("leave", "Sam");
			await line(0, "Priya Raman", lines[0][1]);
			const correction = '"segment_id":"s-0"';
			await api(base, "DELETE", `/bots/teams/${nativeId}`, auth);
			await until("leave command", () => bot.received.some((m) => m.type === "command"));
			await bot.send({ type: "status", status: "completed", completion_reason: "stopped", timestamp: new Date().toISOString() });
			bot.ws.close();

			const ofThisMeeting = (r: ReceivedRequest) => r.body.includes(`"native_meeting_id":"${nativeId}"`);
			const mine = await eventually("meeting.completed and the corrected line delivered", async () => {
				const { requests } = await api<{ requests: ReceivedRequest[] }>(
					receiver.url,
					"GET",
					`/__control/requests?path=${encodeURIComponent(hookPath)}`,
					{},
				);
				const deliveries = requests.filter(ofThisMeeting);
				const corrected = deliveries.some(
					(r) => r.body.includes('"event_type":"transcript.segments"') && r.body.includes(correction) && r.body.includes('"version":2'),
				);
				return corrected && deliveries.some((r) => r.body.includes('"event_type":"meeting.completed"')) ? deliveries : undefined;
			});
			return {
				completedMeeting: { platform: "teams", native_meeting_id: nativeId },
				deliveries: mine.map((r) => ({
					headers: Object.fromEntries(Object.entries(r.headers).flatMap(([k, v]) => (typeof v === "string" ? [[k, v]] : []))),
					body: r.body,
				})),
			};
		};
		runner = createServer((req, res) => {
			playMeeting().then(
				(played) => {
					res.writeHead(200, { "content-type": "application/json" });
					res.end(JSON.stringify(played));
				},
				(err: unknown) => {
					res.writeHead(500, { "content-type": "text/plain" });
					res.end(err instanceof Error ? err.message : "meeting failed");
				},
			);
			req.resume();
		});
		await new Promise<void>((resolve) => runner?.listen(0, "127.0.0.1", resolve));
		const address = runner.address() as AddressInfo;
		project.provide("consumerGatewayUrl", base);
		project.provide("consumerApiKey", key);
		project.provide("consumerWebhookSecret", secret);
		project.provide("meetingRunnerUrl", `http://127.0.0.1:${address.port}/meetings`);
	} catch (err) {
		await stop();
		throw err;
	}
	return stop;
}
