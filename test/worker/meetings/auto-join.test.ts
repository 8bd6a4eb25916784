import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { call, json, roomOf, userWithKey } from "../support";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { createPlan, getMeeting, liveMeeting, meetUrl, roomTimers } from "./helpers";

const MIN = 60_000;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

/** Whether the meeting's room ever took over a launch (and so put out a spawn ticket). */
async function spawnedFor(meetingId: number): Promise<boolean> {
	return runInDurableObject(
		roomOf(meetingId),
		async (_room: MeetingRoom, state) => (await state.storage.get(ROOM_KEYS.launch)) !== undefined,
	);
}

/** Waits for the plan's first auto-join attempt to have run (the alarm fires by itself when due). */
async function afterAttempt(headers: Record<string, string>, id: number, check: (m: Meeting) => boolean): Promise<Meeting> {
	return eventually(`auto-join attempt on meeting ${id}`, async () => {
		const m = await getMeeting(headers, id);
		return check(m) ? m : undefined;
	});
}

/**
 * The room's timers once the plan's step events have left it (each plan step is announced, and
 * its webhook events leave the room right after, clearing the `notify` timer).
 */
function quietRoom(id: number) {
	return eventually(`room ${id} without pending events`, async () => {
		const room = await roomTimers(id);
		return room.timers.notify === undefined ? room : undefined;
	});
}

/** Brings the room's auto-join timer to now and runs the alarm. */
async function fireAutoJoinNow(id: number) {
	await runInDurableObject(roomOf(id), async (_room: MeetingRoom, state) => {
		const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
		if (timers.auto_join !== undefined) timers.auto_join = 0;
		await state.storage.put(ROOM_KEYS.timers, timers);
		await state.storage.setAlarm(Date.now());
	});
	await runDurableObjectAlarm(roomOf(id));
}

describe("auto-join of a scheduled meeting", () => {
	it("joins about 60 s before scheduled_at, without any POST /bots", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const plan = await createPlan(headers, { title: "Standup", meeting_url: meetUrl(code), scheduled_at: at(30_000) });
		expect(plan.status).toBe("scheduled");

		const joined = await afterAttempt(headers, plan.id, (m) => m.status !== "scheduled");
		expect(joined).toMatchObject({ id: plan.id, status: "requested", data: { title: "Standup", scheduled_at: plan.data.scheduled_at } });
		expect(joined.data).not.toHaveProperty("auto_join_error");
		const spawn = await spawnRequestFor(plan.id);
		expect(spawn).toMatchObject({ meeting_id: plan.id, platform: "google_meet", native_meeting_id: code, meeting_url: meetUrl(code) });

		// The auto-joined meeting is an ordinary live meeting: its bot connects and reports.
		const bot = await SimulatedBot.connect(spawn);
		await bot.status("active");
		expect((await getMeeting(headers, plan.id)).status).toBe("active");
		const { timers, plan: stored } = await roomTimers(plan.id);
		expect(timers).not.toHaveProperty("auto_join");
		expect(stored).toBeUndefined();
	});

	it("arms the timer 60 s before the start for a later plan", async () => {
		const { headers } = await userWithKey();
		const start = Date.now() + 2 * 3600_000;
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: new Date(start).toISOString() });
		const { timers, alarm } = await roomTimers(plan.id);
		expect(timers.auto_join).toBe(start - MIN);
		expect(alarm).toBe(start - MIN);
	});

	it("still joins a plan a few minutes past its start (within 10 minutes)", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: at(-4 * MIN) });
		expect((await afterAttempt(headers, plan.id, (m) => m.status !== "scheduled")).status).toBe("requested");
		await spawnRequestFor(plan.id);
	});

	it("never joins a plan with auto_join false", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: at(30_000), auto_join: false });
		const { timers, alarm } = await roomTimers(plan.id);
		expect(timers).not.toHaveProperty("auto_join");
		expect(alarm).toBeNull();
		// Idle: no timer, no alarm, and an alarm run finds nothing to do; nothing else could start a bot.
		expect(await runDurableObjectAlarm(roomOf(plan.id))).toBe(false);
		expect((await getMeeting(headers, plan.id)).status).toBe("scheduled");
		expect(await spawnedFor(plan.id)).toBe(false);
	});

	it("skips a plan more than 10 minutes stale and records why, never joining late", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: at(-11 * MIN) });
		const skipped = await afterAttempt(headers, plan.id, (m) => typeof m.data.auto_join_error === "string");
		expect(skipped.status).toBe("scheduled");
		expect(skipped.data.auto_join_error).toMatch(/more than 10 minutes past/);
		const { timers, plan: stored } = await roomTimers(plan.id);
		expect(timers).not.toHaveProperty("auto_join");
		expect(stored).toBeUndefined();
		expect(await spawnedFor(plan.id)).toBe(false);
	});

	it("with a cap of 0, sets data.auto_join_error, stays scheduled and arms a retry", async () => {
		const { headers } = await userWithKey("bot,tx", { max_concurrent_bots: 0 });
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: at(30_000) });
		const refused = await afterAttempt(headers, plan.id, (m) => typeof m.data.auto_join_error === "string");
		expect(refused.status).toBe("scheduled");
		expect(refused.data.auto_join_error).toMatch(/limit is 0/);
		const { timers, alarm, plan: stored } = await roomTimers(plan.id);
		expect(timers.auto_join).toBeGreaterThan(Date.now());
		expect(timers.auto_join).toBeLessThanOrEqual(Date.now() + MIN);
		expect(alarm).toBe(timers.auto_join);
		expect(stored).toMatchObject({ attempts: 1 });
		expect(await spawnedFor(plan.id)).toBe(false);
	});

	it("stops retrying once a retry would land more than 10 minutes past the start", async () => {
		const { headers } = await userWithKey("bot,tx", { max_concurrent_bots: 0 });
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: at(-10 * MIN + 5000) });
		const refused = await afterAttempt(headers, plan.id, (m) => typeof m.data.auto_join_error === "string");
		expect(refused.status).toBe("scheduled");
		expect(await quietRoom(plan.id)).toMatchObject({ timers: {}, alarm: null, plan: undefined });
	});

	it("retries after the cap frees up, then joins and clears the error", async () => {
		const { headers } = await userWithKey("bot,tx", { max_concurrent_bots: 1 });
		// A connected bot, so no watchdog frees the slot behind the test's back.
		const { code: busy, bot: busyBot } = await liveMeeting(headers);
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: at(30_000) });
		const refused = await afterAttempt(headers, plan.id, (m) => typeof m.data.auto_join_error === "string");
		expect(refused).toMatchObject({ status: "scheduled", data: { auto_join_error: "Maximum concurrent bots limit reached (1/1)" } });
		const first = (await roomTimers(plan.id)).timers.auto_join;
		expect(first).toBeGreaterThan(Date.now());

		// Still full on the retry: the backoff grows.
		await fireAutoJoinNow(plan.id);
		const second = await roomTimers(plan.id);
		expect(second.plan).toMatchObject({ attempts: 2 });
		expect((second.timers.auto_join ?? 0) - Date.now()).toBeGreaterThan((first ?? 0) - Date.now());

		expect((await call("DELETE", `/bots/google_meet/${busy}`, { headers })).status).toBe(204);
		await busyBot.status("completed");
		await fireAutoJoinNow(plan.id);
		const joined = await getMeeting(headers, plan.id);
		expect(joined.status).toBe("requested");
		expect(joined.data).not.toHaveProperty("auto_join_error");
		await spawnRequestFor(plan.id);
	});

	it("re-arms when PATCH moves scheduled_at, and cancels when it clears it or turns auto_join off", async () => {
		const { headers } = await userWithKey();
		const first = Date.now() + 2 * 3600_000;
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: new Date(first).toISOString() });
		expect((await roomTimers(plan.id)).timers.auto_join).toBe(first - MIN);

		const later = first + 3600_000;
		const patch = (body: Record<string, unknown>) => call("PATCH", `/meetings/${plan.id}`, { headers, json: body });
		expect((await patch({ scheduled_at: new Date(later).toISOString() })).status).toBe(200);
		expect(await roomTimers(plan.id)).toMatchObject({ timers: { auto_join: later - MIN }, alarm: later - MIN });

		expect((await patch({ auto_join: false })).status).toBe(200);
		expect(await quietRoom(plan.id)).toMatchObject({ timers: {}, alarm: null });
		expect((await patch({ auto_join: true })).status).toBe(200);
		expect((await roomTimers(plan.id)).timers.auto_join).toBe(later - MIN);

		expect((await patch({ scheduled_at: null })).status).toBe(200);
		expect(await quietRoom(plan.id)).toMatchObject({ timers: {}, alarm: null });
	});

	it("cancels the timer when the plan is deleted", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: at(3600_000) });
		expect((await roomTimers(plan.id)).timers).toHaveProperty("auto_join");
		expect((await call("DELETE", `/meetings/${plan.id}`, { headers })).status).toBe(204);
		expect(await quietRoom(plan.id)).toMatchObject({ timers: {}, alarm: null, plan: undefined });
		expect(await runDurableObjectAlarm(roomOf(plan.id))).toBe(false);
	});

	it("never joins a plan without a link (platform unknown), nor one whose link was detached", async () => {
		const { headers } = await userWithKey();
		const bare = await createPlan(headers, { title: "No link", scheduled_at: at(30_000) });
		expect(bare.platform).toBe("unknown");
		expect(await roomTimers(bare.id)).toMatchObject({ timers: {}, alarm: null });

		const detached = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: at(3600_000) });
		expect((await roomTimers(detached.id)).timers).toHaveProperty("auto_join");
		const res = await call("PATCH", `/meetings/${detached.id}`, { headers, json: { meeting_url: null } });
		expect((await json<Meeting>(res)).platform).toBe("unknown");
		expect(await roomTimers(detached.id)).toMatchObject({ timers: {}, alarm: null });

		// Both rooms idle (no timer, no alarm): nothing is on its way to start a bot.
		for (const id of [bare.id, detached.id]) {
			expect((await getMeeting(headers, id)).status).toBe("scheduled");
			expect(await spawnedFor(id)).toBe(false);
		}
		// Even a timer that fires for it does nothing.
		await runInDurableObject(roomOf(bare.id), async (_room: MeetingRoom, state) => {
			await state.storage.put(ROOM_KEYS.plan, {
				meetingId: bare.id,
				userId: bare.user_id,
				scheduledAt: bare.data.scheduled_at,
				attempts: 0,
			});
			await state.storage.put(ROOM_KEYS.timers, { auto_join: 0 });
			await state.storage.setAlarm(Date.now());
		});
		await runDurableObjectAlarm(roomOf(bare.id));
		expect((await getMeeting(headers, bare.id)).status).toBe("scheduled");
		expect(await env.DB.prepare("SELECT status FROM meetings WHERE id = ?").bind(bare.id).first()).toEqual({ status: "scheduled" });
	});
});
