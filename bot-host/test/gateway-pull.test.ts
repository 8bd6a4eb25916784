/**
 * A real bot host process (`node bot-host/main.ts`) as deployed: no SPAWN_QUEUE_URL and no
 * queue token, only the gateway and its own credential. It pulls spawn tickets through the
 * gateway (`/internal/bot-hosts/queue/messages/pull`, docs/bot-fleet.md#host-credentials), no
 * more than the free slots it reported, claims there, and its bot joins the sandbox meeting.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAPACITY_GATE_OFF } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { until } from "../../test/shared/wait.ts";
import { scriptMeeting } from "./harness.ts";
import { type HostPeers, startHostPeers } from "./host-peers.ts";
import { statusesOf } from "./room.ts";

describe("a bot host with only a gateway and its own credential", () => {
	let peers: HostPeers;
	let child: ChildProcess | null = null;
	const output: string[] = [];
	beforeAll(async () => {
		peers = await startHostPeers();
	});
	afterAll(async () => {
		if (child && child.exitCode === null) {
			const exited = once(child, "exit");
			child.kill("SIGKILL");
			await exited;
		}
		await peers.close();
	});

	it("pulls through the gateway as itself, within its reported slots, and its bot joins", async () => {
		const port = await freePort();
		const queueId = "through-gateway";
		peers.claims.hostQueue = { url: peers.queue.url(queueId) };
		const credential = peers.claims.credentialFor("gateway-host");
		const { SPAWN_QUEUE_URL: _url, SPAWN_QUEUE_TOKEN: _token, ...inherited } = process.env;
		child = spawn(process.execPath, ["bot-host/main.ts"], {
			stdio: ["ignore", "pipe", "pipe"],
			env: {
				...inherited,
				BOT_HOST_PORT: String(port),
				BOT_HOST_CREDENTIAL: credential,
				BOT_HOST_ID: "gateway-host",
				BOT_HOST_SLOTS: "2",
				BOT_HOST_GATEWAY_URL: peers.claims.url,
				BOT_HOST_SANDBOX: `${peers.sandbox.port}:${peers.sandbox.spkiHash}`,
				OUTBOUND_ALLOW_PRIVATE: "true",
				...CAPACITY_GATE_OFF,
				BOT_HOST_BACKOFF_MIN_MS: "100",
				BOT_HOST_BACKOFF_MAX_MS: "300",
				BOT_HOST_REPORT_S: "1",
			},
		});
		for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
		await until("the host healthy", async () => (await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.status === 200, 30_000);
		await until("a pull through the gateway", () => peers.claims.hostPulls.length > 0, 30_000);

		const meeting = scriptMeeting(peers, "google_meet", { direct_join: true, participants: [{ name: "Ada" }] });
		peers.queue.publish(queueId, peers.claims.offer({ ...meeting.request, attempt: 1 }));
		await peers.room.until(meeting.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));

		// Every pull came as this host, with its credential, and asked no more than its last reported free slots.
		expect(new Set(peers.claims.hostPulls.map((p) => p.as))).toEqual(new Set(["gateway-host"]));
		expect(Math.max(...peers.claims.hostPulls.map((p) => p.batch))).toBeLessThanOrEqual(2);
		expect(peers.claims.claims.map((c) => [c.as, c.status])).toEqual([["gateway-host", 200]]);
		// The queue itself was only ever asked by the gateway, never straight by the host.
		expect(peers.queue.pulls(queueId).length).toBeLessThanOrEqual(peers.claims.hostPulls.length);
		expect(output.join("")).not.toContain(credential);
	});
});
