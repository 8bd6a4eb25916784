/**
 * The retention sweep (docs/retention.md#retention): an ended meeting older than its owner's
 * window loses its media, screenshots, diagnostics, search rows and stream log, on every store;
 * its record and transcript stay; a meeting inside the window, and one of an account that keeps
 * everything, keep all of it. The account's window beats the deployment's, and a changed window
 * applies to meetings that already ended.
 */
import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { sweepRetention } from "../../../src/meetings/retention";
import { EXPIRED_MEETINGS_SQL } from "../../../src/meetings/retention-store";
import { search } from "../search/search-helpers";
import { call, json } from "../support";
import { bucketRefusingDeletes } from "./broken-env";
import { finishedMeeting, type Owner, owner } from "./finished-meeting";
import { getMeeting } from "./helpers";
import { type MeetingRef, type MeetingStores, NOTHING, storesOf } from "./meeting-stores";

const DAY_MS = 86_400_000;

/** Moves a meeting's end back in time, as if it had ended then. */
async function endedAt(meeting: MeetingRef, at: Date): Promise<void> {
	await env.DB.prepare("UPDATE meetings SET end_time = ? WHERE id = ?").bind(at.toISOString(), meeting.id).run();
}

async function setWindow(who: Owner, days: number | null) {
	const res = await call("PUT", "/user/retention", { headers: who.headers, json: { retention_days: days } });
	expect(res.status).toBe(200);
	return json(res);
}

/** The minute cron, as the runtime fires it. */
async function cronTick(bindings: Env = env as Env): Promise<void> {
	const ctx = createExecutionContext();
	await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), bindings, ctx);
	await waitOnExecutionContext(ctx);
}

/** What a swept meeting keeps: its record, transcript, chat, participants, shares, delivery rows, kept renderings and room. */
function sweptFrom(before: MeetingStores): MeetingStores {
	const { recordings: _r, media_files: _m, media_file_parts: _p, search_changes: _c, ...database } = before.database;
	return {
		...NOTHING,
		database,
		objects: before.objects.filter((key) => key.startsWith("transcript-cache/")),
		room: before.room,
	};
}

/** A store listing without the search log's pending entries, which the partitions empty on their own time. */
const settled = ({ database: { search_changes: _c, ...database }, ...rest }: MeetingStores): MeetingStores => ({ database, ...rest });

async function expectSwept(who: Owner, meeting: MeetingRef, before: MeetingStores) {
	expect(await storesOf(meeting)).toEqual(sweptFrom(before));
	const record = await getMeeting(who.headers, meeting.id);
	expect(record.status).toBe("failed");
	expect(record.recordings).toEqual([]);
	expect(record.data.diagnostics).toBeUndefined();
	expect(record.data.title).toBe(`Review ${meeting.marker}`);
	const transcript = await json<{ segments: { text: string }[] }>(
		await call("GET", `/transcripts/google_meet/${(meeting as MeetingRef & { code: string }).code}`, { headers: who.headers }),
	);
	expect(transcript.segments.map((s) => s.text)).toEqual([1, 2, 3].map((i) => `${meeting.marker} point ${i}`));
	expect((await search(who.headers, { q: meeting.marker })).total).toBe(0);
	const marked = await env.DB.prepare("SELECT media_expired_at FROM meetings WHERE id = ?")
		.bind(meeting.id)
		.first<string>("media_expired_at");
	expect(marked).not.toBeNull();
}

describe("the retention sweep", () => {
	it("deletes exactly what is older than the account's window, and a shorter window later reaches meetings already ended", async () => {
		const windowed = await owner();
		const keeper = await owner();
		const old = await finishedMeeting(windowed, "old");
		const recent = await finishedMeeting(windowed, "recent");
		const kept = await finishedMeeting(keeper, "keeper");
		await endedAt(old, new Date(Date.now() - 10 * DAY_MS));
		await endedAt(recent, new Date(Date.now() - 2 * DAY_MS));
		await endedAt(kept, new Date(Date.now() - 400 * DAY_MS));
		expect(await setWindow(windowed, 5)).toEqual({ retention_days: 5, deployment_days: 0, effective_days: 5 });
		const before = { old: await storesOf(old), recent: settled(await storesOf(recent)), kept: settled(await storesOf(kept)) };
		expect(before.old.database.recordings).toBe(1);
		expect(before.old.stream.rows.stream_events).toBeGreaterThan(0);

		await cronTick();
		await expectSwept(windowed, old, before.old);
		expect(settled(await storesOf(recent))).toEqual(before.recent);
		// The deployment keeps everything (RETENTION_DAYS 0) and this account set no window of its own.
		expect(settled(await storesOf(kept))).toEqual(before.kept);

		// A shorter window applies to what already ended; a second sweep finds nothing more to do.
		await setWindow(windowed, 1);
		expect(await sweepRetention(env as Env, new Date())).toBeGreaterThanOrEqual(1);
		await expectSwept(windowed, recent, before.recent);
		const afterBoth = await storesOf(old);
		await sweepRetention(env as Env, new Date());
		expect(await storesOf(old)).toEqual(afterBoth);
	});

	it("applies the deployment's RETENTION_DAYS to accounts without a window, and an account's own window beats it", async () => {
		const following = await owner();
		const overriding = await owner();
		const byDefault = await finishedMeeting(following, "default");
		const byOverride = await finishedMeeting(overriding, "override");
		// About nine years ago: a deployment window of 3000 days reaches it, and no other test's meeting in the shared database.
		const longAgo = new Date(Date.now() - 3300 * DAY_MS);
		await endedAt(byDefault, longAgo);
		await endedAt(byOverride, longAgo);
		const deployment = { ...(env as Env), RETENTION_DAYS: "3000" };
		expect(await setWindow(overriding, 3650)).toMatchObject({ retention_days: 3650, effective_days: 3650 });
		expect(await json(await call("GET", "/user/retention", { headers: following.headers }))).toEqual({
			retention_days: null,
			deployment_days: 0,
			effective_days: 0,
		});
		const before = { byDefault: await storesOf(byDefault), byOverride: settled(await storesOf(byOverride)) };

		await cronTick(deployment);
		await expectSwept(following, byDefault, before.byDefault);
		expect(settled(await storesOf(byOverride))).toEqual(before.byOverride);

		// Back to the deployment's window: the meeting goes at the next sweep.
		await setWindow(overriding, null);
		await sweepRetention(deployment, new Date());
		await expectSwept(overriding, byOverride, before.byOverride);
	});

	it("leaves a meeting unmarked while a store refuses, and the next run sweeps it", async () => {
		const who = await owner();
		const meeting = await finishedMeeting(who, "refused");
		await endedAt(meeting, new Date(Date.now() - 3 * DAY_MS));
		await setWindow(who, 1);
		const before = await storesOf(meeting);
		vi.spyOn(console, "error").mockImplementation(() => {});

		await sweepRetention({ ...(env as Env), RECORDINGS: bucketRefusingDeletes(env.RECORDINGS) }, new Date());
		expect(settled(await storesOf(meeting))).toEqual(settled(before));
		expect(
			await env.DB.prepare("SELECT media_expired_at FROM meetings WHERE id = ?").bind(meeting.id).first("media_expired_at"),
		).toBeNull();

		await sweepRetention(env as Env, new Date());
		await expectSwept(who, meeting, before);
		vi.restoreAllMocks();
	});

	it("reads each account's meetings through the retention index, never the whole meetings table", async () => {
		const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${EXPIRED_MEETINGS_SQL}`)
			.bind(new Date().toISOString(), 30, 20)
			.all<{ detail: string }>();
		const details = plan.results.map((r) => r.detail);
		expect(details.join("\n")).toMatch(/SEARCH m USING INDEX meetings_retention/);
		expect(details.filter((d) => /^SCAN m\b/.test(d))).toEqual([]);
	});
});
