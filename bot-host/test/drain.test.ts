/**
 * Draining a real bot host process (`node bot-host/main.ts`): it takes work by pulling from the
 * queue stand-in and claiming from the claim server, its bots join sandbox meetings and report on
 * the FakeRoom's channel. SIGTERM stops the pulls and takes /health out of rotation but keeps
 * the bots until their meetings end; a second SIGTERM makes the rest leave naming host_drained,
 * and the process exits once no bot is left.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CAPACITY_GATE_OFF } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { until } from "../../test/shared/wait.ts";
import { scriptMeeting } from "./harness.ts";
import { type HostPeers, startHostPeers } from "./host-peers.ts";
import { finalStatus, statusesOf } from "./room.ts";

describe("a draining bot host process", () => {
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

	it("keeps its bots through SIGTERM until their meetings end, makes the rest leave naming host_drained on a second, then exits", async () => {
		const port = await freePort();
		const queueId = "drain";
		child = spawn(process.execPath, ["bot-host/main.ts"], {
			stdio: ["ignore", "pipe", "pipe"],
			env: {
				...process.env,
				BOT_HOST_PORT: String(port),
				BOT_HOST_CREDENTIAL: peers.claims.credentialFor("drain-host"),
				BOT_HOST_ID: "drain-host",
				BOT_HOST_SLOTS: "2",
				SPAWN_QUEUE_URL: peers.queue.url(queueId),
				BOT_HOST_GATEWAY_URL: peers.claims.url,
				BOT_HOST_SANDBOX: `${peers.sandbox.port}:${peers.sandbox.spkiHash}`,
				OUTBOUND_ALLOW_PRIVATE: "true",
				// Other work shares this machine's cores: the bots this test starts are its own count.
				...CAPACITY_GATE_OFF,
				BOT_HOST_BACKOFF_MIN_MS: "100",
				BOT_HOST_BACKOFF_MAX_MS: "300",
				BOT_HOST_FULL_POLL_MS: "100",
				BOT_HOST_REPORT_S: "1",
			},
		});
		const exited = once(child, "exit");
		for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
		const health = async () => {
			const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
			return res ? { status: res.status, body: (await res.json()) as { status: string; bots: number } } : null;
		};
		await until("the host healthy", async () => (await health())?.status === 200, 30_000);

		const staying = scriptMeeting(peers, "google_meet", { direct_join: true, participants: [{ name: "Ada" }] });
		const lingering = scriptMeeting(peers, "teams", { direct_join: true, participants: [{ name: "Bea" }] });
		for (const m of [staying, lingering]) {
			peers.queue.publish(queueId, peers.claims.offer({ ...m.request, attempt: 1 }));
		}
		for (const m of [staying, lingering]) await peers.room.until(m.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		await until("a report of both bots running", () => peers.claims.reports.some((r) => r.running === 2), 30_000);
		expect(peers.claims.reports.find((r) => r.running === 2)).toMatchObject({
			host_id: "drain-host",
			slots: 2,
			launching: 0,
			free: 0,
			draining: false,
			limited_by: ["slots"],
			refusing: "2 of 2 slots taken",
		});
		expect(output.join("")).toContain("bot host: taking no work: 2 of 2 slots taken\n");

		child.kill("SIGTERM");
		await until("the host draining", async () => (await health())?.status === 503, 30_000);
		expect((await health())?.body).toEqual({
			status: "draining",
			problems: [],
			bots: 2,
			free: 0,
			limited_by: ["draining", "slots"],
			refusing: "draining: the host is stopping; 2 of 2 slots taken",
			// Refusing since the slots filled: draining joined a refusal already under way.
			refusing_since: expect.any(String),
		});
		// New work is left for other hosts: no pull while draining.
		const pulls = peers.queue.pulls(queueId).length;
		const later = scriptMeeting(peers, "zoom", { direct_join: true });
		peers.queue.publish(queueId, peers.claims.offer({ ...later.request, attempt: 1 }));
		// Two reports later (one a second) the loop has gone round many times (every 100 ms while full) without a pull.
		const reportsAtPublish = peers.claims.reports.length;
		await until("two host reports after the ticket was published", () => peers.claims.reports.length >= reportsAtPublish + 2, 30_000);
		expect(peers.queue.pulls(queueId).length).toBe(pulls);
		expect(peers.queue.backlog(queueId)).toBe(1);

		// One meeting ends on its own: its bot leaves as usual; the other stays, and so does the process.
		await fetch(`${peers.sandbox.controlUrl}/meetings/${staying.nativeId}/actions`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ action: "end" }),
		});
		expect(await peers.room.until(staying.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "left_alone" });
		// The process stays: it reports again, draining, with one bot left.
		await until("a draining report of one bot", () => peers.claims.reports.some((r) => r.draining && r.running === 1), 30_000);
		expect(child.exitCode).toBeNull();
		expect(finalStatus(peers.room.received(lingering.meetingId))).toBeUndefined();
		expect((await health())?.body).toMatchObject({ status: "draining", bots: 1 });

		child.kill("SIGTERM");
		const drained = await peers.room.until(lingering.meetingId, finalStatus);
		// The fleet's cause and no reason: the room gives the stage's teardown reason (none once admitted).
		expect(drained).toMatchObject({
			status: "failed",
			failure_cause: "host_drained",
			reason: "the bot host was stopped before the meeting ended",
		});
		expect(drained?.completion_reason).toBeUndefined();
		const [code] = await exited;
		expect(code).toBe(0);
		expect(peers.sandbox.observed(lingering.nativeId)?.attendees[0]).toMatchObject({ left: true });
		// Its last report said it was draining.
		expect(peers.claims.reports.at(-1)).toMatchObject({ host_id: "drain-host", draining: true, free: 0 });
		expect(output.join("")).toContain("bot host: no bot left; exiting");
	});
});
