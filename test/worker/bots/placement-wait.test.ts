/**
 * A meeting waiting for a bot host says what it waits on (docs/api.md#waiting-for-a-bot-host):
 * `data.placement`, made by its room from the hosts' fresh reports (sent through the real
 * report route), refreshed on the room's `placement_refresh` timer, announced as a note on /ws
 * and webhooks once per change of reason, gone on a claim, and named in a `no_bot_capacity` failure.
 * The user sees their own wait, a count and a generic reason: never a host's id, load or words.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import type { HostReport } from "../../../src/bot-channel/fleet";
import type { MeetingPlacement } from "../../../src/live/frames";
import { BotStatusList, MeetingRecord } from "../../../src/routes/meeting-schemas";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import {
	claimAttempt,
	hostCredential,
	openSocket,
	publishedTicket,
	SimulatedBot,
	type SocketClient,
	spawnRequestFor,
} from "../meetings/bot-sim";
import { Faults, failingD1, swapEnv } from "../meetings/broken-env";
import { createPlan, fireTimersNow, meetUrl, roomTimers, sendBot } from "../meetings/helpers";
import { call, expectDocumented, roomOf, userWithKey } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received } from "../webhooks/receiver";

const report = (host_id: string, fields: Partial<HostReport> = {}): HostReport => ({
	host_id,
	version: "1.0.0",
	slots: 20,
	running: 2,
	launching: 0,
	free: 18,
	draining: false,
	mem_available_mb: 12_000,
	load1: 0.5,
	...fields,
});

/** A host reports as it would: through the report route, with its own credential. */
async function hostReports(body: HostReport): Promise<void> {
	const res = await call("POST", "/internal/bot-hosts/reports", {
		headers: { Authorization: `Bearer ${await hostCredential(body.host_id)}` },
		json: body,
	});
	expect(res.status, await res.clone().text()).toBe(204);
}

const getMeeting = async (headers: Record<string, string>, id: number) =>
	expectDocumented(MeetingRecord, await call("GET", `/meetings/${id}`, { headers }));

/** The meeting's `data.placement` once its room has written one that matches. */
const placementOf = (headers: Record<string, string>, id: number, match: (p: MeetingPlacement) => boolean = () => true) =>
	eventually("data.placement", async () => {
		const placement = (await getMeeting(headers, id)).data.placement as MeetingPlacement | undefined;
		return placement && match(placement) ? placement : undefined;
	});

/** Fires the room's placement_refresh timer alone, as its time had come. */
async function fireRefresh(id: number): Promise<void> {
	await runInDurableObject(roomOf(id), async (_room: MeetingRoom, state) => {
		const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
		expect(timers.placement_refresh).toBeGreaterThan(0);
		await state.storage.put(ROOM_KEYS.timers, { ...timers, placement_refresh: 0 });
		await state.storage.setAlarm(Date.now());
	});
	await runDurableObjectAlarm(roomOf(id));
}

async function watch(key: string, code: string): Promise<SocketClient> {
	const watcher = await openSocket("/ws", { "X-API-Key": key });
	watcher.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
	await watcher.waitFor("subscribed", (msg) => msg.type === "subscribed");
	return watcher;
}

type StatusFrame = { type: string; payload: { status: string; data: Record<string, unknown> | null } };
const notes = (watcher: SocketClient) =>
	(watcher.messages as StatusFrame[]).filter(
		(m) => m.type === "meeting.status" && m.payload.status === "requested" && m.payload.data?.placement,
	);

/** The webhook notes of a meeting: status_change steps that keep `requested`. */
async function webhookNotes(path: string) {
	return (await received(path))
		.map((r) => JSON.parse(r.body))
		.filter(
			(b) =>
				b.event_type === "meeting.status_change" && b.data.status_change.from === "requested" && b.data.status_change.to === "requested",
		);
}

// The fleet's reports are one table every file shares: each test here counts from a fleet it made.
beforeEach(async () => {
	await env.DB.prepare("DELETE FROM bot_hosts").run();
});

describe("data.placement while a meeting waits", () => {
	it("says no host has reported when none did in the last 60 s, with since and the deadline the ticket carries", async () => {
		// A report older than a minute is no host at all.
		await env.DB.prepare("INSERT INTO bot_hosts (host_id, report, reported_at) VALUES (?, ?, ?)")
			.bind("gone-1", JSON.stringify(report("gone-1")), new Date(Date.now() - 61_000).toISOString())
			.run();
		const { headers } = await userWithKey();
		const asked = new Date().toISOString();
		const m = await sendBot(headers, meetCode());
		const ticket = await publishedTicket(m.id);
		const placement = await placementOf(headers, m.id);
		expect(placement).toEqual({
			since: expect.any(String),
			deadline: ticket?.not_after,
			attempt: 1,
			reason: "no_host_reported",
			detail: "no bot host has reported in the last 60 s",
			hosts_reporting: 0,
		});
		expect(placement.since >= asked && placement.since <= new Date().toISOString()).toBe(true);
		// GET /bots/status shows it beside the bot.
		const status = await expectDocumented(BotStatusList, await call("GET", "/bots/status", { headers }));
		expect(status.running_bots.find((b) => b.meeting_id === m.id)?.data).toEqual({
			completion_reason: null,
			failure_stage: null,
			placement,
		});
	});

	it("says all hosts are busy and how many, naming no host, no load and none of a host's words", async () => {
		await hostReports(
			report("local-1", { free: 0, limited_by: ["cpu"], refusing: "CPU pressure 91% (limit 80%)", cpu_pressure: 91, mem_pressure: 2 }),
		);
		// Older hosts send no `refusing`: full slots, draining, and room short for another reason.
		await hostReports(report("local-2", { running: 18, launching: 2, free: 0 }));
		await hostReports(report("old-3", { free: 0, draining: true }));
		// A compromised host's words would otherwise reach every waiting meeting's record and webhook.
		await hostReports(report("old-4", { running: 3, free: 0, refusing: "Call +1-555-0100 to fix your meeting" }));
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const placement = await placementOf(headers, m.id);
		expect(placement).toEqual({
			since: expect.any(String),
			deadline: expect.any(String),
			attempt: 1,
			reason: "all_hosts_busy",
			detail: "all bot hosts are busy",
			hosts_reporting: 4,
		});
		const record = JSON.stringify(await getMeeting(headers, m.id));
		for (const told of ["local-1", "local-2", "old-3", "old-4", "CPU pressure", "slots", "draining", "555-0100"]) {
			expect(record).not.toContain(told);
		}
	});

	it("says a host has room but has not taken the meeting, without saying which or how much", async () => {
		await hostReports(report("busy-a", { free: 0, refusing: "all 20 slots taken" }));
		await hostReports(report("roomy-b", { running: 17, free: 3 }));
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const placement = await placementOf(headers, m.id);
		expect(placement).toMatchObject({
			reason: "not_yet_pulled",
			detail: "a bot host has room but has not taken the meeting yet",
			hosts_reporting: 2,
		});
		expect(JSON.stringify(await getMeeting(headers, m.id))).not.toMatch(/busy-a|roomy-b|"free"/);
	});
});

describe("the refresh and its note", () => {
	it("re-reads the reports on the timer, writes only changes, and notes /ws and webhooks once per change of reason", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const code = meetCode();
		const m = await sendBot(headers, code);
		const watcher = await watch(key, code);
		try {
			const first = await placementOf(headers, m.id);
			expect(first.reason).toBe("no_host_reported");
			// The first look only writes: a meeting placed at once says no more than `requested`.
			await watcher.pingPong();
			expect(notes(watcher)).toEqual([]);

			// The timer's first look finds it still waiting: that is news, once.
			await fireRefresh(m.id);
			const note = await watcher.waitFor<StatusFrame>("the first note", (msg) => notes(watcher).includes(msg as StatusFrame));
			expect(note.payload.data).toEqual({ reason: first.detail, completion_reason: null, placement: first });
			expect((await roomTimers(m.id)).timers.placement_refresh).toBeGreaterThan(Date.now());
			const hooked = await eventually("the webhook note", async () =>
				(await webhookNotes(hook.path)).length === 1 ? webhookNotes(hook.path) : undefined,
			);
			expect(hooked[0].data.status_change).toMatchObject({ reason: first.detail, transition_source: "watchdog" });
			expect(hooked[0].data.meeting).toMatchObject({ status: "requested", data: { placement: first } });

			// Nothing changed: nothing written (the record's updated_at stays), nothing said.
			const before = await getMeeting(headers, m.id);
			await fireRefresh(m.id);
			expect((await getMeeting(headers, m.id)).updated_at).toBe(before.updated_at);

			// All busy now: written and said.
			await hostReports(report("solo", { free: 0, refusing: "CPU pressure 91% (limit 80%)" }));
			await fireRefresh(m.id);
			const busy = await placementOf(headers, m.id, (p) => p.reason === "all_hosts_busy");
			expect(busy.detail).toBe("all bot hosts are busy");
			// The host says the same in other words: the user's record does not move, nothing is said.
			const busyRecord = await getMeeting(headers, m.id);
			await hostReports(report("solo", { free: 0, refusing: "CPU pressure 95% (limit 80%)" }));
			await fireRefresh(m.id);
			expect((await getMeeting(headers, m.id)).updated_at).toBe(busyRecord.updated_at);
			// A host with room: said.
			await hostReports(report("solo", { free: 2 }));
			await fireRefresh(m.id);
			await placementOf(headers, m.id, (p) => p.reason === "not_yet_pulled");
			await watcher.pingPong();
			expect(notes(watcher).map((f) => f.payload.data?.reason)).toEqual([
				"no bot host has reported in the last 60 s",
				"all bot hosts are busy",
				"a bot host has room but has not taken the meeting yet",
			]);
			const reasons = await eventually("three webhook notes", async () => {
				const all = await webhookNotes(hook.path);
				return all.length >= 3 ? all.map((b) => b.data.status_change.reason) : undefined;
			});
			expect(reasons).toEqual(notes(watcher).map((f) => f.payload.data?.reason));
		} finally {
			watcher.close();
		}
	});

	it("goes away on a claim, with its timer, and says nothing more", async () => {
		await hostReports(report("taker", { free: 1 }));
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		await placementOf(headers, m.id);
		expect((await claimAttempt(m.id, 1, "taker")).status).toBe(200);
		const claimed = await getMeeting(headers, m.id);
		expect(claimed.status).toBe("requested");
		expect(claimed.data.placement).toBeUndefined();
		expect(Object.keys((await roomTimers(m.id)).timers)).toEqual(["watchdog"]);
		const status = await expectDocumented(BotStatusList, await call("GET", "/bots/status", { headers }));
		expect(status.running_bots.find((b) => b.meeting_id === m.id)?.data).toBeUndefined();
	});
});

describe("when the reports cannot be read or the record written", () => {
	it("still claims, and still fails no_bot_capacity on time: what a meeting shows never holds up placement", async () => {
		const { headers } = await userWithKey();
		const claimed = await sendBot(headers, meetCode());
		await placementOf(headers, claimed.id);
		const claimRestore = await swapEnv(roomOf(claimed.id), (real) => ({ DB: failingD1(real.DB, /json_remove/, new Faults(10)) }));
		try {
			expect((await claimAttempt(claimed.id)).status).toBe(200);
		} finally {
			await claimRestore();
		}

		const unplaced = await sendBot(headers, meetCode());
		await placementOf(headers, unplaced.id);
		const faults = new Faults(10);
		const restore = await swapEnv(roomOf(unplaced.id), (real) => ({ DB: failingD1(real.DB, /FROM bot_hosts/, faults) }));
		try {
			await fireTimersNow(unplaced.id);
			const failed = await eventually("failed", async () => {
				const now = await getMeeting(headers, unplaced.id);
				return now.status === "failed" ? now : undefined;
			});
			expect(faults.count).toBeGreaterThan(0);
			expect(failed.data).toMatchObject({ failure_cause: "no_bot_capacity", failure_detail: "no bot host took the meeting within 180 s" });
		} finally {
			await restore();
		}
	});
});

describe("an auto-join waiting for a host", () => {
	it("shows data.placement but announces no note before its step to requested is, and is handed back without it", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const code = meetCode();
		// Hours ahead, so auto-join waits for the test to fire it.
		const plan = await createPlan(headers, { meeting_url: meetUrl(code), scheduled_at: new Date(Date.now() + 2 * 3600_000).toISOString() });
		const watcher = await watch(key, code);
		try {
			await fireTimersNow(plan.id);
			const placement = await placementOf(headers, plan.id);
			expect(placement.reason).toBe("no_host_reported");
			await fireRefresh(plan.id);
			await watcher.pingPong();
			expect((watcher.messages as StatusFrame[]).filter((m) => m.type === "meeting.status")).toEqual([]);
			// The deadline hands the plan back: scheduled again, nothing of the wait left.
			await fireTimersNow(plan.id);
			const back = await eventually("the plan handed back", async () => {
				const now = await getMeeting(headers, plan.id);
				return now.status === "scheduled" ? now : undefined;
			});
			expect(back.data.placement).toBeUndefined();
			expect(await webhookNotes(hook.path)).toEqual([]);
		} finally {
			watcher.close();
		}
	});
});

describe("the end of a wait", () => {
	it("fails no_bot_capacity saying what it waited on at the end, and keeps no data.placement", async () => {
		const { headers, key } = await userWithKey();
		const code = meetCode();
		const m = await sendBot(headers, code);
		await placementOf(headers, m.id, (p) => p.reason === "no_host_reported");
		const watcher = await watch(key, code);
		try {
			// What it waits on at the end is read then, not what the last refresh saw.
			await hostReports(report("local-1", { free: 0, refusing: "CPU pressure 91% (limit 80%)" }));
			await fireTimersNow(m.id);
			const failed = await eventually("failed", async () => {
				const now = await getMeeting(headers, m.id);
				return now.status === "failed" ? now : undefined;
			});
			const detail = "no bot host took the meeting within 180 s; at the end: all bot hosts are busy";
			expect(failed.data).toMatchObject({ failure_cause: "no_bot_capacity", failure_detail: detail });
			expect(failed.data.placement).toBeUndefined();
			const frame = await watcher.waitFor<StatusFrame>("the failed frame", (msg) => (msg as StatusFrame).payload?.status === "failed");
			expect(frame.payload.data).toMatchObject({ reason: detail, failure_cause: "no_bot_capacity" });
			const { timers } = await roomTimers(m.id);
			expect([timers.placement, timers.placement_refresh]).toEqual([undefined, undefined]);
		} finally {
			watcher.close();
		}
	});

	it("shows a respawn waiting too: the next attempt, in the meeting's own status, until its claim", async () => {
		const { headers, key } = await userWithKey();
		const code = meetCode();
		const m = await sendBot(headers, code);
		const restore = await swapEnv(roomOf(m.id), () => ({ BOT_MAX_RESPAWNS: "1" }));
		const watcher = await watch(key, code);
		try {
			const first = await SimulatedBot.connect(await spawnRequestFor(m.id));
			await first.status("active");
			expect((await getMeeting(headers, m.id)).data.placement).toBeUndefined();
			await hostReports(report("spare", { free: 4 }));
			// The bot's host is lost: the watchdog asks for attempt 2.
			await runInDurableObject(roomOf(m.id), async (_room: MeetingRoom, state) => {
				const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
				await state.storage.put(ROOM_KEYS.timers, { ...timers, watchdog: 0 });
				await state.storage.setAlarm(Date.now());
			});
			await runDurableObjectAlarm(roomOf(m.id));
			const placement = await placementOf(headers, m.id, (p) => p.attempt === 2);
			expect(placement).toMatchObject({ reason: "not_yet_pulled", detail: "a bot host has room but has not taken the meeting yet" });
			expect((await getMeeting(headers, m.id)).status).toBe("active");
			await fireRefresh(m.id);
			const note = await watcher.waitFor<StatusFrame>(
				"the respawn's note",
				(msg) => msg.type === "meeting.status" && Boolean((msg as StatusFrame).payload.data?.placement),
			);
			expect(note.payload).toMatchObject({ status: "active", data: { reason: placement.detail, placement } });
			await SimulatedBot.connect(await spawnRequestFor(m.id, 2));
			expect((await getMeeting(headers, m.id)).data.placement).toBeUndefined();
		} finally {
			watcher.close();
			await restore();
		}
	});
});
