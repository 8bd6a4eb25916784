/**
 * Usage caps (docs/api.md#caps): the operator sets them, the user reads them in GET /usage, and
 * a new bot is refused once one is reached (429 with Retry-After to the reset for bot minutes,
 * 403 for a recording bot past the storage cap), on POST /bots and on a plan's auto-join, with
 * nothing claimed or written; a bot already running is not stopped.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_STORAGE } from "../../../durable-objects/account/storage";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import { type Meeting, meetCode } from "../../shared/meetings";
import { createPlan, getMeeting, meetUrl } from "../meetings/helpers";
import { ADMIN, accountOf, call, json, roomOf, userWithKey } from "../support";
import { knownMeeting, wholeFile } from "./usage-fixtures";

const MIN = 60_000;

async function setCaps(userId: number, caps: Record<string, unknown>) {
	const res = await call("PATCH", `/admin/users/${userId}/usage-caps`, { headers: ADMIN, json: caps });
	expect(res.status, await res.clone().text()).toBe(200);
	return json(res);
}

const slotsOf = (userId: number) =>
	runInDurableObject(
		accountOf(userId),
		async (_a, state) => (await state.storage.get<Record<string, unknown>>(ACCOUNT_STORAGE.keys.botSlots)) ?? {},
	);

async function meetingIds(headers: Record<string, string>): Promise<number[]> {
	const res = await call("GET", "/meetings", { headers });
	return (await json<{ meetings: Meeting[] }>(res)).meetings.map((m) => m.id);
}

const tryBot = (headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
	call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: meetCode(), ...extra } });

/** A completed meeting today whose bot was in it for `minutes`, ending a minute ago (and not before today's midnight). */
async function minutesToday(userId: number, minutes: number): Promise<number> {
	const end = Date.now() - MIN;
	const midnight = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
	const start = Math.max(midnight, end - minutes * MIN);
	await knownMeeting(userId, { status: "completed", start_time: new Date(start).toISOString(), end_time: new Date(end).toISOString() });
	return (end - start) / MIN;
}

describe("usage caps, as the operator sets them", () => {
	it("are none until set; a number sets one, null clears it, a field left out keeps it", async () => {
		const { user, headers } = await userWithKey();
		const none = await call("GET", `/admin/users/${user.id}/usage-caps`, { headers: ADMIN });
		expect(await json(none)).toEqual({ user_id: user.id, bot_minutes_per_day: null, bot_minutes_per_month: null, storage_bytes: null });
		expect(await setCaps(user.id, { bot_minutes_per_day: 60, storage_bytes: 5000 })).toEqual({
			user_id: user.id,
			bot_minutes_per_day: 60,
			bot_minutes_per_month: null,
			storage_bytes: 5000,
		});
		expect(await setCaps(user.id, { bot_minutes_per_month: 600, storage_bytes: null })).toEqual({
			user_id: user.id,
			bot_minutes_per_day: 60,
			bot_minutes_per_month: 600,
			storage_bytes: null,
		});
		// The user reads them, with what counts against each and when it resets.
		const report = await json<{ caps: Record<string, { limit: number; used: number; resets_at: string | null } | null> }>(
			await call("GET", "/usage", { headers }),
		);
		const now = new Date();
		expect(report.caps.bot_minutes_per_day).toEqual({
			limit: 60,
			used: 0,
			resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString(),
		});
		expect(report.caps.bot_minutes_per_month).toEqual({
			limit: 600,
			used: 0,
			resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
		});
		expect(report.caps.storage_bytes).toBeNull();
	});

	it("refuses bad caps with 422 and an unknown user with 404, changing nothing", async () => {
		const { user } = await userWithKey();
		await setCaps(user.id, { bot_minutes_per_day: 30 });
		for (const body of [{}, { bot_minutes_per_day: -1 }, { bot_minutes_per_day: 1.5 }, { storage_bytes: "lots" }, { concurrent: 2 }]) {
			const res = await call("PATCH", `/admin/users/${user.id}/usage-caps`, { headers: ADMIN, json: body });
			expect(res.status, JSON.stringify(body)).toBe(422);
			expect(Array.isArray((await json<{ detail: unknown }>(res)).detail)).toBe(true);
		}
		const unknown = await call("PATCH", "/admin/users/999999999/usage-caps", { headers: ADMIN, json: { storage_bytes: 1 } });
		expect(unknown.status).toBe(404);
		expect(await json(unknown)).toEqual({ detail: "User not found" });
		const kept = await call("GET", `/admin/users/${user.id}/usage-caps`, { headers: ADMIN });
		expect(await json(kept)).toMatchObject({ bot_minutes_per_day: 30, bot_minutes_per_month: null, storage_bytes: null });
		// A user's key is not the admin's.
		const { headers } = await userWithKey();
		expect((await call("PATCH", `/admin/users/${user.id}/usage-caps`, { headers, json: { storage_bytes: 1 } })).status).toBe(403);
	});
});

describe("a new bot past a cap", () => {
	it("is sent while today's bot minutes are under the daily cap, and refused with 429 once they reach it, nothing changed", async () => {
		const { user, headers } = await userWithKey();
		const used = await minutesToday(user.id, 30);
		await setCaps(user.id, { bot_minutes_per_day: Math.floor(used) + 1 });
		const sent = await tryBot(headers);
		expect(sent.status, await sent.clone().text()).toBe(201);

		await setCaps(user.id, { bot_minutes_per_day: Math.floor(used) });
		const meetingsBefore = await meetingIds(headers);
		const slotsBefore = await slotsOf(user.id);
		const code = meetCode();
		const refused = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code } });
		expect(refused.status).toBe(429);
		const { detail } = await json<{ detail: string }>(refused);
		const midnight = new Date(Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`) + 86_400_000).toISOString();
		expect(detail).toBe(
			`The account's daily bot minutes cap is reached: ${Math.round(used * 100) / 100} of ${Math.floor(used)} minutes used today (UTC). No new bot can be sent until it resets at ${midnight}`,
		);
		const retryAfter = Number(refused.headers.get("retry-after"));
		expect(Math.abs(retryAfter - (Date.parse(midnight) - Date.now()) / 1000)).toBeLessThan(30);
		expect(await meetingIds(headers)).toEqual(meetingsBefore);
		expect(await slotsOf(user.id)).toEqual(slotsBefore);
		const byLink = await call("GET", `/transcripts/google_meet/${code}`, { headers });
		expect(byLink.status).toBe(404);
	});

	it("is refused by the monthly cap with Retry-After to the first of next month, and by a cap of 0 at once", async () => {
		const { user, headers } = await userWithKey();
		await setCaps(user.id, { bot_minutes_per_month: 0 });
		const refused = await tryBot(headers);
		expect(refused.status).toBe(429);
		const now = new Date();
		const reset = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
		expect((await json<{ detail: string }>(refused)).detail).toBe(
			`The account's monthly bot minutes cap is reached: 0 of 0 minutes used this month (UTC). No new bot can be sent until it resets at ${reset}`,
		);
		expect(Math.abs(Number(refused.headers.get("retry-after")) - (Date.parse(reset) - Date.now()) / 1000)).toBeLessThan(30);
		expect(await meetingIds(headers)).toEqual([]);
		// Clearing the cap lets bots go again.
		await setCaps(user.id, { bot_minutes_per_month: null });
		expect((await tryBot(headers)).status).toBe(201);
	});

	it("counts a running bot's minutes up to now, and leaves that bot running", async () => {
		const { user, headers } = await userWithKey();
		const running = await knownMeeting(user.id, { status: "active", start_time: new Date(Date.now() - 3 * MIN).toISOString() });
		await setCaps(user.id, { bot_minutes_per_month: 2 });
		const refused = await tryBot(headers);
		expect(refused.status).toBe(429);
		expect((await json<{ detail: string }>(refused)).detail).toMatch(/monthly bot minutes cap is reached: 3(\.\d+)? of 2 minutes/);
		expect((await getMeeting(headers, running)).status).toBe("active");
	});

	it("refuses a bot that would record once the bytes stored reach the storage cap (403), and still sends one that does not", async () => {
		const { user, headers } = await userWithKey();
		const ended = await knownMeeting(user.id, {
			status: "completed",
			start_time: "2025-01-01T10:00:00.000Z",
			end_time: "2025-01-01T10:10:00.000Z",
		});
		await wholeFile(user.id, ended, 1000, "2025-01-01T10:11:00.000Z");
		await setCaps(user.id, { storage_bytes: 1001 });
		expect((await tryBot(headers, { recording_enabled: true })).status).toBe(201);

		await setCaps(user.id, { storage_bytes: 1000 });
		const before = await meetingIds(headers);
		const refused = await tryBot(headers, { recording_enabled: true });
		expect(refused.status).toBe(403);
		expect(await json(refused)).toEqual({
			detail:
				"The account's storage cap is reached: 1000 of 1000 bytes stored. A bot that records cannot be sent until recordings are deleted; send it with recording_enabled false",
		});
		expect(await meetingIds(headers)).toEqual(before);
		expect((await tryBot(headers, { recording_enabled: false })).status).toBe(201);
	});

	it("keeps a plan scheduled with the cap's words in data.auto_join_error when auto-join is refused", async () => {
		const { user, headers } = await userWithKey();
		await setCaps(user.id, { bot_minutes_per_day: 0 });
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: new Date(Date.now() + 30_000).toISOString() });
		await runInDurableObject(roomOf(plan.id), async (_room: MeetingRoom, state) => {
			const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
			if (timers.auto_join !== undefined) timers.auto_join = 0;
			await state.storage.put(ROOM_KEYS.timers, timers);
			await state.storage.setAlarm(Date.now());
		});
		await runDurableObjectAlarm(roomOf(plan.id));
		const after = await getMeeting(headers, plan.id);
		expect(after.status).toBe("scheduled");
		expect(after.data.auto_join_error).toMatch(/^The account's daily bot minutes cap is reached: 0 of 0 minutes used today \(UTC\)/);
		expect(await slotsOf(user.id)).toEqual({});
	});
});
