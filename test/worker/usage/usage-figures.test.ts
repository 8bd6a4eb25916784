/**
 * GET /usage and GET /usage/meetings (docs/api.md#usage): bot minutes from admission to the end,
 * waiting minutes from the join to admission, relayed audio and stored bytes, per UTC day and per
 * meeting, from records whose times and sizes are known; a live meeting counts up to now; and
 * the relay and the recording parts, through their own routes, feed the figures.
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { MeetingUsagePage, UsageReport } from "../../../src/routes/usage";
import { meetCode } from "../../shared/meetings";
import { spawnRequestFor } from "../meetings/bot-sim";
import { liveMeeting, sendBot } from "../meetings/helpers";
import { cut, streamParts, webmFixture } from "../recordings/parts-helpers";
import { sineWav } from "../recordings/wav-fixture";
import { call, expectDocumented, json, userWithKey } from "../support";
import { script } from "../webhooks/receiver";
import { knownMeeting, relayed, streamedFile, wholeFile } from "./usage-fixtures";

type Report = z.infer<typeof UsageReport>;
type MeetingPage = z.infer<typeof MeetingUsagePage>;

/** GET /usage, its body exactly as /openapi.json documents it. */
async function usage(headers: Record<string, string>, query: string): Promise<Report> {
	return expectDocumented(UsageReport, await call("GET", `/usage?${query}`, { headers }));
}

async function meetingUsage(headers: Record<string, string>, query: string): Promise<MeetingPage> {
	return expectDocumented(MeetingUsagePage, await call("GET", `/usage/meetings?${query}`, { headers }));
}

const noCaps = { bot_minutes_per_day: null, bot_minutes_per_month: null, storage_bytes: null };

/**
 * Three meetings in March 2025: one waits 5 min and is in 30 min across midnight UTC, one
 * waits 2 min and is never let in, one waits 1 min and is in for an hour; audio relayed on two
 * days; a streamed file stored after midnight and a whole file on the last day.
 */
async function march(userId: number) {
	const across = await knownMeeting(userId, {
		status: "completed",
		title: "Across midnight",
		joining_at: "2025-03-10T23:50:00.000Z",
		start_time: "2025-03-10T23:55:00.000Z",
		end_time: "2025-03-11T00:25:00.000Z",
	});
	const lobby = await knownMeeting(userId, {
		status: "failed",
		joining_at: "2025-03-11T09:00:00.000Z",
		end_time: "2025-03-11T09:02:00.000Z",
	});
	const hour = await knownMeeting(userId, {
		status: "completed",
		joining_at: "2025-03-12T10:00:00.000Z",
		start_time: "2025-03-12T10:01:00.000Z",
		end_time: "2025-03-12T11:01:00.000Z",
	});
	// Outside the range read, and planned meetings that never ran: none of them counts.
	await knownMeeting(userId, {
		status: "completed",
		joining_at: "2025-03-20T10:00:00.000Z",
		start_time: "2025-03-20T10:00:30.000Z",
		end_time: "2025-03-20T10:30:30.000Z",
	});
	await knownMeeting(userId, { status: "scheduled" });
	await relayed(userId, "2025-03-10", 90, across);
	await relayed(userId, "2025-03-11", 30, across);
	await streamedFile(userId, across, [
		{ bytes: 300, at: "2025-03-11T00:10:00.000Z" },
		{ bytes: 200, at: "2025-03-11T00:20:00.000Z" },
	]);
	await wholeFile(userId, hour, 1000, "2025-03-12T11:02:00.000Z");
	return { across, lobby, hour };
}

describe("usage figures", () => {
	it("counts bot, waiting and relayed minutes and stored bytes per UTC day, a meeting across midnight on both days", async () => {
		const { user, headers } = await userWithKey();
		const other = await userWithKey();
		await march(user.id);
		// Another account's meeting on the same days is not this one's.
		await knownMeeting(other.user.id, {
			status: "completed",
			joining_at: "2025-03-11T08:00:00.000Z",
			start_time: "2025-03-11T08:00:00.000Z",
			end_time: "2025-03-11T09:00:00.000Z",
		});

		const report = await usage(headers, "from=2025-03-10&to=2025-03-12");
		expect(report.days).toEqual([
			{ day: "2025-03-10", meetings: 1, bot_minutes: 5, waiting_minutes: 5, transcription_minutes: 1.5, storage_bytes_added: 0 },
			{ day: "2025-03-11", meetings: 2, bot_minutes: 25, waiting_minutes: 2, transcription_minutes: 0.5, storage_bytes_added: 500 },
			{ day: "2025-03-12", meetings: 1, bot_minutes: 60, waiting_minutes: 1, transcription_minutes: 0, storage_bytes_added: 1000 },
		]);
		expect(report.totals).toEqual({
			meetings: 3,
			bot_minutes: 90,
			waiting_minutes: 8,
			transcription_minutes: 2,
			storage_bytes_added: 1500,
		});
		expect(report.storage_bytes).toBe(1500);
		expect(report.caps).toEqual(noCaps);

		// A range ending at midnight keeps only the part before it.
		const first = await usage(headers, "from=2025-03-10&to=2025-03-10");
		expect(first.totals).toEqual({ meetings: 1, bot_minutes: 5, waiting_minutes: 5, transcription_minutes: 1.5, storage_bytes_added: 0 });
		expect(first.days).toHaveLength(1);
		// Stored bytes now do not depend on the range; bytes added do.
		expect(first.storage_bytes).toBe(1500);
		// Days with nothing are rows too, so a chart has every day.
		const quiet = await usage(headers, "from=2025-03-13&to=2025-03-19");
		expect(quiet.days.map((d) => d.day)).toEqual([
			"2025-03-13",
			"2025-03-14",
			"2025-03-15",
			"2025-03-16",
			"2025-03-17",
			"2025-03-18",
			"2025-03-19",
		]);
		expect(quiet.totals).toEqual({ meetings: 0, bot_minutes: 0, waiting_minutes: 0, transcription_minutes: 0, storage_bytes_added: 0 });
	});

	it("lists each meeting's figures within the range, newest first, in pages", async () => {
		const { user, headers } = await userWithKey();
		const { across, lobby, hour } = await march(user.id);

		const page = await meetingUsage(headers, "from=2025-03-10&to=2025-03-12");
		expect(page).toMatchObject({ total: 3, limit: 50, offset: 0 });
		expect(page.meetings.map((m) => m.meeting_id)).toEqual([hour, lobby, across]);
		const [h, l, a] = page.meetings;
		expect(a).toMatchObject({
			title: "Across midnight",
			live: false,
			bot_minutes: 30,
			waiting_minutes: 5,
			transcription_minutes: 2,
			storage_bytes: 500,
		});
		expect(l).toMatchObject({ bot_minutes: 0, waiting_minutes: 2, transcription_minutes: 0, storage_bytes: 0 });
		expect(h).toMatchObject({ bot_minutes: 60, waiting_minutes: 1, transcription_minutes: 0, storage_bytes: 1000 });

		const last = await meetingUsage(headers, "from=2025-03-10&to=2025-03-12&limit=2&offset=2");
		expect(last).toMatchObject({ total: 3, limit: 2, offset: 2 });
		expect(last.meetings.map((m) => m.meeting_id)).toEqual([across]);

		// Only 11 March: the meeting across midnight counts its 25 minutes after it and that day's audio.
		const day = await meetingUsage(headers, "from=2025-03-11&to=2025-03-11");
		expect(day.meetings.map((m) => [m.meeting_id, m.bot_minutes, m.waiting_minutes, m.transcription_minutes])).toEqual([
			[lobby, 0, 2, 0],
			[across, 25, 0, 0.5],
		]);
	});

	it("counts a live meeting up to now", async () => {
		const { user, headers } = await userWithKey();
		const start = Date.now() - 10 * 60_000;
		const id = await knownMeeting(user.id, {
			status: "active",
			joining_at: new Date(start - 60_000).toISOString(),
			start_time: new Date(start).toISOString(),
		});
		const today = new Date().toISOString().slice(0, 10);
		const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
		const before = Date.now();
		const report = await usage(headers, `from=${yesterday}&to=${today}`);
		const after = Date.now();
		expect(report.totals.bot_minutes).toBeGreaterThanOrEqual(Math.floor(((before - start) / 60_000) * 100) / 100);
		expect(report.totals.bot_minutes).toBeLessThanOrEqual(Math.ceil(((after - start) / 60_000) * 100) / 100);
		expect(report.totals.waiting_minutes).toBe(1);
		const page = await meetingUsage(headers, `from=${yesterday}&to=${today}`);
		expect(page.meetings).toHaveLength(1);
		expect(page.meetings[0]).toMatchObject({ meeting_id: id, live: true, waiting_minutes: 1 });
		expect(page.meetings[0]?.bot_minutes).toBeGreaterThanOrEqual(10);
	});

	it("takes the relayed audio and the recording parts from their own routes", async () => {
		const { headers } = await userWithKey();
		const stt = `/stt/${crypto.randomUUID()}/v1`;
		const put = await call("PUT", "/user/transcription", { headers, json: { url: `${env.WEBHOOK_RECEIVER_URL}${stt}` } });
		expect(put.status).toBe(200);
		const { meeting, bot } = await liveMeeting(headers);
		await script(`${stt}/audio/transcriptions`, [
			{ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "one" }) },
			{ status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "two" }) },
		]);
		for (let i = 0; i < 2; i++) {
			const form = new FormData();
			form.set("file", new Blob([sineWav(15)], { type: "audio/wav" }), "audio.wav");
			form.set("model", "whisper-1");
			const res = await SELF.fetch(bot.spawn.transcription?.url ?? "", {
				method: "POST",
				headers: { authorization: `Bearer ${bot.spawn.channel.token}` },
				body: form,
			});
			expect(res.status, await res.clone().text()).toBe(200);
		}

		const recording = await sendBot(headers, meetCode(), { recording_enabled: true });
		const spawn = await spawnRequestFor(recording.id);
		// A real WebM file (ffmpeg's), streamed in two parts as a bot ships it.
		const webm = webmFixture("audio");
		await streamParts(spawn, "audio", cut(webm, [Math.floor(webm.length / 2)]));

		const today = new Date().toISOString().slice(0, 10);
		const report = await usage(headers, `from=${today}&to=${today}`);
		// Two 15 s files: half a minute each.
		expect(report.totals.transcription_minutes).toBe(0.5);
		expect(report.storage_bytes).toBe(webm.length);
		expect(report.totals.storage_bytes_added).toBe(webm.length);
		const page = await meetingUsage(headers, `from=${today}&to=${today}`);
		expect(page.meetings.find((m) => m.meeting_id === meeting.id)).toMatchObject({ transcription_minutes: 0.5, live: true });
	});
});

describe("usage ranges", () => {
	it("refuses dates that are not dates, a range that ends before it starts, and one over 366 days, with 422 {detail}", async () => {
		const { headers } = await userWithKey();
		const cases: [string, (string | number)[], RegExp][] = [
			["from=2025-02-30", ["query", "from"], /real date/],
			["from=2025-3-1", ["query", "from"], /YYYY-MM-DD/],
			["to=yesterday", ["query", "to"], /YYYY-MM-DD/],
			["from=2025-03-12&to=2025-03-10", ["query", "to"], /before from/],
			["from=2024-01-01&to=2025-01-02", ["query", "to"], /at most 366/],
		];
		for (const path of ["/usage", "/usage/meetings"]) {
			for (const [query, loc, msg] of cases) {
				const res = await call("GET", `${path}?${query}`, { headers });
				expect(res.status, `${path}?${query}`).toBe(422);
				const body = await json<{ detail: { loc: (string | number)[]; msg: string }[] }>(res);
				expect(body.detail[0]?.loc, query).toEqual(loc);
				expect(body.detail[0]?.msg, query).toMatch(msg);
			}
		}
		const paging = await call("GET", "/usage/meetings?limit=0", { headers });
		expect(paging.status).toBe(422);
		// A leap year's 366 days are one range.
		const leap = await call("GET", "/usage?from=2024-01-01&to=2024-12-31", { headers });
		expect(leap.status).toBe(200);
		expect((await json<Report>(leap)).days).toHaveLength(366);
	});

	it("defaults to this month so far", async () => {
		const { headers } = await userWithKey();
		const now = new Date();
		const report = await usage(headers, "");
		expect(report.to).toBe(now.toISOString().slice(0, 10));
		expect(report.from).toBe(`${now.toISOString().slice(0, 7)}-01`);
		expect(report.days).toHaveLength(now.getUTCDate());
	});

	it("is read with a bot or tx key, not a browser-only one", async () => {
		const tx = await userWithKey("tx");
		expect((await call("GET", "/usage", { headers: tx.headers })).status).toBe(200);
		const browser = await userWithKey("browser");
		for (const path of ["/usage", "/usage/meetings"]) {
			const res = await call("GET", path, { headers: browser.headers });
			expect(res.status).toBe(403);
		}
	});
});
