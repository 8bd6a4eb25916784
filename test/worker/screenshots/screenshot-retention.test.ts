/**
 * How long a bot's screenshots are kept (docs/api.md#help-and-diagnostics): they show the meeting
 * page the bot was on (names, faces, shared screens), so they go with their meeting's record, and
 * SCREENSHOT_RETENTION_DAYS after the meeting ended in any case; and the bound on names per
 * attempt holds for uploads sent at the same time (security review findings 6 and 12).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SCREENSHOTS_PER_ATTEMPT, screenshotUrl } from "../../../src/screenshots/screenshots";
import { meetCode } from "../../shared/meetings";
import { spawnRequestFor } from "../meetings/bot-sim";
import { createPlan, fireTimersNow, getMeeting, roomTimers, sendBot } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { jpegBytes, openLink, uploadScreenshot } from "./fixtures";

const DAY_MS = 86_400_000;

async function liveBot() {
	const { user, headers } = await userWithKey();
	const code = meetCode();
	const meeting = await sendBot(headers, code);
	const spawn = await spawnRequestFor(meeting.id);
	return { user, headers, code, meeting, spawn };
}

const keysUnder = async (prefix: string) => (await env.RECORDINGS.list({ prefix })).objects.map((o) => o.key);

describe("screenshots per attempt", () => {
	it(`stores at most ${SCREENSHOTS_PER_ATTEMPT} names however many uploads arrive at once`, async () => {
		const { user, meeting, spawn } = await liveBot();
		const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => uploadScreenshot(spawn, `burst-${i}.jpg`, jpegBytes())));
		const statuses = answers.map((r) => r.status);
		expect(statuses.filter((s) => s === 201)).toHaveLength(SCREENSHOTS_PER_ATTEMPT);
		expect(statuses.filter((s) => s === 409)).toHaveLength(30 - SCREENSHOTS_PER_ATTEMPT);
		expect(await keysUnder(`screenshots/${user.id}/${meeting.id}/1/`)).toHaveLength(SCREENSHOTS_PER_ATTEMPT);
	});
});

describe("screenshot retention", () => {
	it("deletes a meeting's screenshots SCREENSHOT_RETENTION_DAYS (30) after it ended, and its links lead nowhere", async () => {
		const { user, headers, code, meeting, spawn } = await liveBot();
		const other = await liveBot();
		expect((await uploadScreenshot(spawn, "help-1.jpg", jpegBytes())).status).toBe(201);
		expect((await uploadScreenshot(other.spawn, "help-1.jpg", jpegBytes())).status).toBe(201);
		const url = await screenshotUrl(env, meeting.id, { attempt: 1, name: "help-1.jpg" });
		const ending = Date.now();
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		expect(await getMeeting(headers, meeting.id)).toMatchObject({ status: "completed" });
		// Kept until then: the owner can still look at what the bot saw.
		expect((await openLink(url ?? "")).status).toBe(200);
		const { timers } = await roomTimers(meeting.id);
		expect(timers.screenshots_expire).toBeGreaterThanOrEqual(ending + 30 * DAY_MS);
		expect(timers.screenshots_expire).toBeLessThanOrEqual(Date.now() + 30 * DAY_MS);

		await fireTimersNow(meeting.id);
		expect(await keysUnder(`screenshots/${user.id}/${meeting.id}/`)).toEqual([]);
		expect((await roomTimers(meeting.id)).timers.screenshots_expire).toBeUndefined();
		const gone = await openLink(url ?? "");
		expect(gone.status).toBe(404);
		expect(await json(gone)).toEqual({ detail: "Screenshot not found" });
		// Another meeting's screenshots are its own.
		expect(await keysUnder(`screenshots/${other.user.id}/${other.meeting.id}/`)).toHaveLength(1);
	});
});

describe("a meeting's record removed", () => {
	it("takes the screenshots and kept transcript renderings under it along, and nothing of another meeting's", async () => {
		const { user, headers } = await userWithKey();
		const plan = await createPlan(headers, { title: "Planned" });
		const kept = await createPlan(headers, { title: "Kept" });
		// What the bucket may hold for a meeting: its bots' screenshots and its transcript renderings.
		const objects = (id: number) => [
			`screenshots/${user.id}/${id}/1/help-1.jpg`,
			`screenshots/${user.id}/${id}/2/failure.png`,
			`transcript-cache/${id}/export.srt`,
		];
		for (const key of [...objects(plan.id), ...objects(kept.id)]) await env.RECORDINGS.put(key, "x");
		expect((await call("DELETE", `/meetings/${plan.id}`, { headers })).status).toBe(204);
		for (const key of objects(plan.id)) expect(await env.RECORDINGS.head(key), key).toBeNull();
		for (const key of objects(kept.id)) expect(await env.RECORDINGS.head(key), key).not.toBeNull();
	});
});
