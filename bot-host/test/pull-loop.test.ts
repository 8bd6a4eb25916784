/**
 * The pull loop, for real: it pulls from the local Queues stand-in (scripts/local-queue.mjs)
 * and claims from a claim server speaking the gateway's shapes (fleet-peers.ts). Capacity,
 * duplicate and lost claims, refusals, expiry, back-off and reports; real bots only where one
 * must run (at most two Chromiums).
 */
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SpawnTicket } from "../../src/bot-channel/fleet.ts";
import type { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { until } from "../../test/shared/wait.ts";
import { capacityOf } from "../fleet/capacity.ts";
import { Gateway } from "../fleet/gateway.ts";
import { PullLoop, type PullLoopSettings, type WorkTaker } from "../fleet/pull-loop.ts";
import { Reporter } from "../fleet/reporter.ts";
import { SpawnQueue } from "../fleet/spawn-queue.ts";
import { startBotHost } from "../service.ts";
import { FakeProc } from "./fake-proc.ts";
import { type ClaimServer, type CountingQueue, startClaimServer, startCountingQueue } from "./fleet-peers.ts";
import { ROOMY_MACHINE, scriptMeeting, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

const QUEUE_TOKEN = "queue-token";
const FAST: PullLoopSettings = { backoffMinMs: 50, backoffMaxMs: 200, fullPollMs: 50, claimRetryDelayS: 1, visibilityMs: 30_000 };

const later = (ms = 600_000) => new Date(Date.now() + ms).toISOString();
/** A well-formed ticket no room published. */
const unpublished = (meetingId: number, attempt = 1): SpawnTicket => ({
	meeting_id: meetingId,
	attempt,
	not_after: later(),
	ticket_id: randomBytes(18).toString("base64url"),
	signature: randomBytes(32).toString("hex"),
});
let queueSeq = 0;
let nextMeeting = 500_000 + Math.floor(Math.random() * 100_000);

/** A host that starts nothing, only counts: for paths where no bot may start, or where starting is not the point. */
function countingHost(slots: number) {
	const launched: SpawnRequest[] = [];
	const host = {
		launched,
		draining: false,
		/** How often the loop asked: each ask is one turn of the loop, so a test can see it went round without pulling. */
		capacityChecks: 0,
		capacity: () => {
			host.capacityChecks += 1;
			return capacityOf(
				{ slots, readers: ROOMY_MACHINE },
				{ running: launched.length, launching: 0, draining: host.draining, ready: true },
			);
		},
		launch: (request: SpawnRequest) => void launched.push(request),
	};
	return host;
}

describe("the pull loop against the queue and the claim route", () => {
	let queue: CountingQueue;
	let claims: ClaimServer;
	const loops: PullLoop[] = [];
	const logs: string[] = [];
	beforeAll(async () => {
		queue = await startCountingQueue(QUEUE_TOKEN);
		claims = await startClaimServer();
	});
	afterEach(async () => {
		await Promise.all(loops.splice(0).map((loop) => loop.stop()));
		claims.failClaims(0, 503);
		queue.mode = "up";
		queue.pullDelayMs = 0;
	});
	afterAll(async () => {
		await queue.close();
		await claims.close();
	});

	const startLoop = (
		host: WorkTaker,
		queueId: string,
		hostId = "host-a",
		settings: PullLoopSettings = FAST,
		credential = claims.credentialFor(hostId),
	) => {
		const loop = new PullLoop({
			queue: new SpawnQueue({ url: queue.url(queueId), token: QUEUE_TOKEN, log: (line) => logs.push(line) }),
			gateway: new Gateway({ url: claims.url, credential: () => credential }),
			host,
			hostId,
			version: "test-1",
			log: (line) => logs.push(line),
			...settings,
		});
		loops.push(loop);
		loop.start();
		return loop;
	};
	const offered = (meetingId: number, notAfter?: string) =>
		claims.offer(
			{
				meeting_id: meetingId,
				attempt: 1,
				platform: "google_meet",
				native_meeting_id: "abc-defg-hij",
				meeting_url: "https://meet.google.com/abc-defg-hij",
				bot_name: "Notetaker",
				transcription: null,
				channel: { url: "ws://127.0.0.1:9/meetings/1/bot", token: "t" },
			},
			notAfter,
		);
	const claimsFor = (meetingId: number) => claims.claims.filter((c) => c.claim.meeting_id === meetingId);

	it("acks and drops a refused claim: a duplicate delivery starts one bot, a meeting that no longer wants one starts none", async () => {
		const queueId = `q${++queueSeq}`;
		const wanted = ++nextMeeting;
		const over = ++nextMeeting;
		const ticket = offered(wanted);
		const overTicket = offered(over);
		claims.end(over);
		// At-least-once delivery: the same ticket twice.
		queue.publish(queueId, ticket);
		queue.publish(queueId, ticket);
		queue.publish(queueId, overTicket);
		const host = countingHost(5);
		startLoop(host, queueId);
		await until("every delivery settled", () => queue.backlog(queueId) === 0);
		expect(host.launched.map((r) => r.meeting_id)).toEqual([wanted]);
		expect(claimsFor(wanted).map((c) => [c.status, c.reason])).toEqual([
			[200, undefined],
			[409, "taken"],
		]);
		expect(claimsFor(over).map((c) => [c.status, c.reason])).toEqual([[409, "ended"]]);
		// As itself, with its own credential, presenting the ticket exactly as it was pulled.
		expect(claimsFor(wanted)[0]).toMatchObject({
			as: "host-a",
			claim: { meeting_id: wanted, attempt: 1, host_id: "host-a", version: "test-1", ticket },
		});
	});

	it("starts no bot for a ticket the room did not publish: an edited one goes back to the queue, a foreign one is dropped", async () => {
		const queueId = `q${++queueSeq}`;
		const edited = ++nextMeeting;
		const foreign = ++nextMeeting;
		const published = offered(edited);
		offered(foreign);
		queue.publish(queueId, { ...published, not_after: later(3_600_000) });
		queue.publish(queueId, unpublished(foreign));
		const host = countingHost(5);
		const loop = startLoop(host, queueId);
		await until("a claim for each ticket", () => claimsFor(edited).length >= 1 && claimsFor(foreign).length >= 1);
		await loop.stop();
		expect(host.launched).toEqual([]);
		expect(claimsFor(edited)[0]?.status).toBe(403);
		expect(claimsFor(foreign)[0]).toMatchObject({ status: 409, reason: "stale" });
		// Refused as not this host's to settle: handed back (and dropped by the queue after its retries).
		expect(queue.backlog(queueId)).toBe(1);
	});

	it("claims nothing once its credential is revoked: the ticket goes back for a host that has one", async () => {
		const queueId = `q${++queueSeq}`;
		const meetingId = ++nextMeeting;
		const revoked = claims.credentialFor("host-revoked");
		// Minting again replaces it, as a revocation does.
		claims.credentialFor("host-revoked");
		queue.publish(queueId, offered(meetingId));
		const host = countingHost(5);
		const loop = startLoop(host, queueId, "host-revoked", FAST, revoked);
		await until("the claim refused for the revoked credential", () =>
			logs.some((line) => line.includes(`claim for meeting ${meetingId} attempt 1 got no answer (401`)),
		);
		await loop.stop();
		expect(host.launched).toEqual([]);
		const other = countingHost(5);
		startLoop(other, queueId, "host-b");
		await until("host-b's bot", () => other.launched.length === 1);
		expect(claimsFor(meetingId).map((c) => [c.as, c.status])).toEqual([["host-b", 200]]);
	});

	it("leaves a ticket whose claim got a 5xx for another try, and takes it then", async () => {
		const queueId = `q${++queueSeq}`;
		const meetingId = ++nextMeeting;
		queue.publish(queueId, offered(meetingId));
		claims.failClaims(1, 503);
		const host = countingHost(5);
		startLoop(host, queueId);
		await until("the 503 claim's ticket handed back to the queue", () => queue.retries(queueId) === 1);
		// Handed back, not dropped: still on the queue, no bot yet.
		expect(claimsFor(meetingId)).toHaveLength(1);
		expect(queue.backlog(queueId)).toBe(1);
		expect(host.launched).toEqual([]);
		await until("the ticket taken on its next delivery", () => queue.backlog(queueId) === 0);
		expect(claimsFor(meetingId).map((c) => c.status)).toEqual([503, 200]);
		expect(host.launched.map((r) => r.meeting_id)).toEqual([meetingId]);
	});

	it("leaves a ticket for another host when the gateway cannot be reached at all", async () => {
		const queueId = `q${++queueSeq}`;
		const meetingId = ++nextMeeting;
		const ticket = offered(meetingId);
		queue.publish(queueId, ticket);
		const host = countingHost(5);
		const loop = new PullLoop({
			queue: new SpawnQueue({ url: queue.url(queueId), token: QUEUE_TOKEN, log: (line) => logs.push(line) }),
			gateway: new Gateway({ url: "http://127.0.0.1:9", credential: () => "bhc_unused" }),
			host,
			hostId: "host-cut-off",
			version: "test-1",
			log: (line) => logs.push(line),
			...FAST,
		});
		loops.push(loop);
		loop.start();
		await until("a pull", () => queue.pulls(queueId).length >= 1);
		await loop.stop();
		expect(queue.backlog(queueId)).toBe(1);
		expect(host.launched).toEqual([]);
		// Another host takes it as soon as it shows again.
		const other = countingHost(5);
		startLoop(other, queueId, "host-b");
		await until("host-b's bot", () => other.launched.length === 1);
		expect(claimsFor(meetingId).map((c) => [c.claim.host_id, c.status])).toEqual([["host-b", 200]]);
	});

	it("drops a ticket past its not_after without claiming", async () => {
		const queueId = `q${++queueSeq}`;
		const meetingId = ++nextMeeting;
		queue.publish(queueId, offered(meetingId, new Date(Date.now() - 1_000).toISOString()));
		const host = countingHost(5);
		startLoop(host, queueId);
		await until("the expired ticket dropped", () => queue.backlog(queueId) === 0);
		expect(claimsFor(meetingId)).toEqual([]);
		expect(host.launched).toEqual([]);
		expect(logs.some((line) => line.includes(`ticket for meeting ${meetingId} attempt 1 expired`))).toBe(true);
	});

	it("acks and drops a message that is no spawn ticket", async () => {
		const queueId = `q${++queueSeq}`;
		queue.publish(queueId, { meeting_id: "nope" } as unknown as SpawnTicket);
		const host = countingHost(5);
		startLoop(host, queueId);
		await until("the message dropped", () => queue.backlog(queueId) === 0);
		expect(host.launched).toEqual([]);
		expect(logs).toContain("spawn queue: dropping 1 message(s) that are not spawn tickets");
	});

	it("stops pulling while draining, and leaves new tickets for other hosts", async () => {
		const queueId = `q${++queueSeq}`;
		const host = countingHost(5);
		startLoop(host, queueId);
		await until("a pull", () => queue.pulls(queueId).length >= 1);
		host.draining = true;
		// Two more turns of the loop: a pull in flight when the drain began has been answered by then.
		const drainSeenAt = host.capacityChecks + 2;
		await until("the loop going round while draining", () => host.capacityChecks >= drainSeenAt);
		const pulled = queue.pulls(queueId).length;
		queue.publish(queueId, unpublished(++nextMeeting));
		const turnsAt = host.capacityChecks + 5;
		await until("five turns of the loop with a ticket waiting", () => host.capacityChecks >= turnsAt);
		expect(queue.pulls(queueId).length).toBe(pulled);
		expect(queue.backlog(queueId)).toBe(1);
	});

	it("hands tickets pulled while it stops straight back to the queue, for another host to take at once", async () => {
		const queueId = `q${++queueSeq}`;
		const meetingId = ++nextMeeting;
		queue.publish(queueId, offered(meetingId));
		queue.pullDelayMs = 400;
		const host = countingHost(5);
		const loop = startLoop(host, queueId, "host-stopping");
		await until("the slow pull", () => queue.pulls(queueId).length === 1);
		// The pull is in flight: its tickets arrive after the host was told to stop.
		await loop.stop();
		queue.pullDelayMs = 0;
		expect(host.launched).toEqual([]);
		expect(claimsFor(meetingId)).toEqual([]);
		expect(queue.backlog(queueId)).toBe(1);
		// Visible again now, not after the 30 s visibility timeout nor the claim-retry delay.
		const other = countingHost(5);
		startLoop(other, queueId, "host-b");
		await until("host-b's bot, within the claim-retry delay", () => other.launched.length === 1, 800);
		expect(claimsFor(meetingId).map((c) => [c.claim.host_id, c.status])).toEqual([["host-b", 200]]);
	});

	for (const mode of ["up", "failing", "unreachable"] as const) {
		it(`backs off on ${mode === "up" ? "an empty queue" : mode === "failing" ? "queue API errors" : "an unreachable queue"}`, async () => {
			const queueId = `q${++queueSeq}`;
			queue.mode = mode;
			const host = countingHost(5);
			startLoop(host, queueId, "host-a", { ...FAST, backoffMinMs: 100, backoffMaxMs: 400 });
			// The time window is what is under test: how many pulls a backing-off loop makes in two seconds.
			await new Promise((resolve) => setTimeout(resolve, 2_000));
			const seen = queue.pulls(queueId).length;
			// Jittered 100, 200, 400, 400 … ms: about six pulls in two seconds, never a busy loop.
			expect(seen).toBeGreaterThanOrEqual(2);
			expect(seen).toBeLessThanOrEqual(9);
			expect(queue.pulls(queueId).every((size) => Number.isNaN(size) || size === 5)).toBe(true);
		});
	}

	it("reports the host's state in the HostReport shape, and ignores a gateway that does not take reports", async () => {
		const host = await startBotHost({
			port: 0,
			// No bot starts here: the browser is only named.
			browser: { executablePath: "/usr/bin/chromium", extraFlags: [], fakeDevices: true, sandbox: false },
			slots: 3,
			capacity: { readers: ROOMY_MACHINE },
			hostId: "host-r",
			version: "test-1",
			log: () => {},
		});
		const reportLogs: string[] = [];
		const credential = claims.credentialFor("host-r");
		const reporter = new Reporter({
			gateway: new Gateway({ url: claims.url, credential: () => credential }),
			report: () => host.report(),
			intervalMs: 100,
			log: (line) => reportLogs.push(line),
		});
		try {
			claims.reportStatus = 404;
			reporter.start();
			await until("three reports refused with 404", () => claims.refusedReports >= 3);
			expect(claims.reports).toEqual([]);
			// One line for the whole run of failures, not one per report.
			expect(reportLogs).toEqual(["host report not taken: the gateway answered 404; will keep trying"]);
			claims.reportStatus = 204;
			await until("two reports taken", () => claims.reports.length >= 2);
			expect(claims.rejectedReports).toBe(0);
			expect(claims.reports[0]).toEqual({
				host_id: "host-r",
				version: "test-1",
				slots: 3,
				running: 0,
				launching: 0,
				free: 3,
				draining: false,
				mem_available_mb: 16_000,
				load1: 0,
				limited_by: [],
				refusing: null,
				cpu_pressure: 0,
				mem_pressure: 0,
			});
			expect(reportLogs.at(-1)).toBe("host report: the gateway takes reports again");
		} finally {
			reporter.stop();
			await host.shutdown();
		}
	});

	it("reports at once when what keeps the host from taking work changes, with why and the pressures, not at the next interval", async () => {
		const proc = new FakeProc().pressure("cpu", 12).pressure("memory", 0).meminfo(16_000);
		const host = await startBotHost({
			port: 0,
			browser: { executablePath: "/usr/bin/chromium", extraFlags: [], fakeDevices: true, sandbox: false },
			slots: 3,
			capacity: { procDir: proc.dir, readers: { load1: () => 0, cores: () => 2, diskFreeMb: () => 64_000 } },
			hostId: "host-p",
			version: "test-1",
			log: () => {},
		});
		const credential = claims.credentialFor("host-p");
		// Counted: each check for a change makes a report, so a test can see checks went by without a send.
		let made = 0;
		const reporter = new Reporter({
			gateway: new Gateway({ url: claims.url, credential: () => credential }),
			report: () => {
				made += 1;
				return host.report();
			},
			// An interval no test waits out: every report after the first is one a change sent.
			intervalMs: 600_000,
			limitsCheckMs: 50,
			log: () => {},
		});
		const mine = () => claims.reports.filter((r) => r.host_id === "host-p");
		const checks = async (count: number) => {
			const at = made + count;
			await until(`${count} checks for a change`, () => made >= at);
		};
		try {
			reporter.start();
			await until("the first report", () => mine().length === 1);
			expect(mine()[0]).toMatchObject({ free: 3, limited_by: [], refusing: null, cpu_pressure: 12, mem_pressure: 0 });
			await checks(5);
			expect(mine()).toHaveLength(1);

			proc.pressure("cpu", 97.5);
			await until("a report of the refusal", () => mine().length === 2);
			expect(mine()[1]).toMatchObject({
				free: 0,
				limited_by: ["cpu"],
				refusing: "CPU pressure 97.5% (limit 90% while this host runs no bot)",
				cpu_pressure: 97.5,
			});
			// The figure moves but the limits do not: nothing more is sent before the interval.
			proc.pressure("cpu", 96);
			await checks(5);
			expect(mine()).toHaveLength(2);

			proc.pressure("memory", 95);
			await until("a report naming both", () => mine().length === 3);
			expect(mine()[2]).toMatchObject({ limited_by: ["cpu", "memory_pressure"], mem_pressure: 95 });

			proc.pressure("cpu", 5).pressure("memory", 1);
			await until("a report that it takes work again", () => mine().length === 4);
			expect(mine()[3]).toMatchObject({ free: 3, limited_by: [], refusing: null, cpu_pressure: 5, mem_pressure: 1 });
		} finally {
			reporter.stop();
			await host.shutdown();
			proc.remove();
		}
	});

	it("reports at once when its free slots change, since the gateway lets it claim only those it last reported", async () => {
		const credential = claims.credentialFor("host-f");
		let free = 2;
		const report = () => ({
			...{ host_id: "host-f", version: "test-1", slots: 2, running: 2 - free, launching: 0, free },
			...{ draining: false, mem_available_mb: 8_000, load1: 0, limited_by: free > 0 ? [] : ["slots" as const] },
		});
		const reporter = new Reporter({
			gateway: new Gateway({ url: claims.url, credential: () => credential }),
			report,
			// An interval no test waits out: every report after the first is one a change sent.
			intervalMs: 600_000,
			limitsCheckMs: 50,
			log: () => {},
		});
		const mine = () => claims.reports.filter((r) => r.host_id === "host-f").map((r) => r.free);
		try {
			reporter.start();
			await until("the first report", () => mine().length === 1);
			free = 1;
			await until("a report of one slot taken", () => mine().length === 2);
			free = 2;
			await until("a report of the slot free again", () => mine().length === 3);
			expect(mine()).toEqual([2, 1, 2]);
		} finally {
			reporter.stop();
		}
	});

	it("reports no pressure where the kernel has none: the fields are absent, and the load average decides", async () => {
		const proc = new FakeProc().pressure("cpu", null).pressure("memory", null).meminfo(16_000);
		const host = await startBotHost({
			port: 0,
			browser: { executablePath: "/usr/bin/chromium", extraFlags: [], fakeDevices: true, sandbox: false },
			slots: 3,
			capacity: { procDir: proc.dir, readers: { load1: () => 2.5, cores: () => 2, diskFreeMb: () => 64_000 } },
			hostId: "host-q",
			version: "test-1",
			log: () => {},
		});
		const credential = claims.credentialFor("host-q");
		const reporter = new Reporter({
			gateway: new Gateway({ url: claims.url, credential: () => credential }),
			report: () => host.report(),
			intervalMs: 600_000,
			log: () => {},
		});
		try {
			await reporter.send();
			const sent = claims.reports.find((r) => r.host_id === "host-q");
			expect(sent).toMatchObject({
				free: 0,
				load1: 2.5,
				limited_by: ["load"],
				refusing: "load average 2.5 (limit 2; no PSI on this kernel)",
			});
			expect(sent && ("cpu_pressure" in sent || "mem_pressure" in sent)).toBe(false);
		} finally {
			await host.shutdown();
			proc.remove();
		}
	});
});

describe("the pull loop with real bots", () => {
	// Its bots hold their slots in a lobby for the whole test: on a saturated machine a Chromium
	// can take long to get there, and one that gave up would free its slot under the test.
	const world = useWorld({ slots: 2, joinTimeoutMs: 90_000 });
	let queue: CountingQueue;
	let claims: ClaimServer;
	beforeAll(async () => {
		queue = await startCountingQueue();
		claims = await startClaimServer();
	});
	afterAll(async () => {
		await queue.close();
		await claims.close();
	});

	it("never pulls more than its free slots: with 2 slots and 5 tickets it claims 2, and the next only when one ends", async () => {
		const queueId = "real-bots";
		const meetings = Array.from({ length: 5 }, () => scriptMeeting(world, "zoom", { lobby_forever: true }));
		for (const m of meetings) queue.publish(queueId, claims.offer({ ...m.request, attempt: 1 }));
		const credential = claims.credentialFor("host-real");
		// The real host, with the loop's capacity asks counted: each is one turn of the loop.
		let capacityChecks = 0;
		const host: WorkTaker = {
			capacity: () => {
				capacityChecks += 1;
				return world.host.capacity();
			},
			launch: (request) => world.host.launch(request),
		};
		const turns = async (what: string, count: number) => {
			const at = capacityChecks + count;
			await until(what, () => capacityChecks >= at);
		};
		const loop = new PullLoop({
			queue: new SpawnQueue({ url: queue.url(queueId), log: () => {} }),
			gateway: new Gateway({ url: claims.url, credential: () => credential }),
			host,
			hostId: "host-real",
			version: "test-1",
			log: () => {},
			...FAST,
		});
		loop.start();
		try {
			await until("two bots running", () => world.host.bots.size === 2, 60_000);
			const running = [...world.host.bots.keys()];
			for (const id of running) {
				const reached = await world.room.until(id, (r) => finalStatus(r) ?? statusesOf(r).find((s) => s.status === "awaiting_admission"));
				expect(reached, `bot ${id} ended before its lobby: ${JSON.stringify(reached)}`).toMatchObject({ status: "awaiting_admission" });
			}
			await turns("three turns of the loop while full", 3);
			expect(claims.claims.map((c) => c.status)).toEqual([200, 200]);
			expect(queue.backlog(queueId)).toBe(3);
			// Every pull asked for no more than was free then; while full, none at all.
			expect(queue.pulls(queueId)[0]).toBe(2);
			expect(queue.pulls(queueId).every((size) => size <= 2)).toBe(true);
			const pullsWhileFull = queue.pulls(queueId).length;
			await turns("five more turns of the loop while full", 5);
			expect(queue.pulls(queueId).length).toBe(pullsWhileFull);

			const first = world.host.bots.get(running[0] as number);
			world.room.command(running[0] as number, { action: "leave" });
			await first?.finished;
			await until("the third claim, for the freed slot", () => claims.claims.length === 3, 60_000);
			expect(queue.pulls(queueId).slice(pullsWhileFull)).toEqual([1]);
			// The lease is acked once the claim is answered and the bot started: a moment after the claim.
			await until("the third ticket acked", () => queue.backlog(queueId) === 2);
			expect(world.host.bots.size).toBe(2);
		} finally {
			await loop.stop();
			// Stopped by the host, not by a command: a bot still starting has no channel to hear one.
			await Promise.all([...world.host.bots.values()].map((bot) => bot.stop()));
		}
	}, 180_000);
});
