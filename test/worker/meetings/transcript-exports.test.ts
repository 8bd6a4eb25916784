import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetingTranscript } from "../../../src/meetings/meeting-queries";
import { meetCode } from "../../shared/meetings";
import { call, json, userWithKey } from "../support";
import { createPlan, getMeeting, liveMeeting, meetUrl, segment } from "./helpers";

const transcriptPath = (code: string, query = "") => `/transcripts/google_meet/${code}${query}`;
const read = (headers: Record<string, string>, code: string, query = "") => call("GET", transcriptPath(code, query), { headers });

/** A live meeting with two confirmed segments (sent out of order, one past an hour) and a draft. */
async function spokenMeeting(headers: Record<string, string>, code = meetCode()) {
	const live = await liveMeeting(headers, code);
	await live.bot.send({
		type: "segment",
		segment: segment({ segment_id: "b", speaker: "Bob", text: "Then we ship.", start: 3725.5, end: 3727 }),
	});
	await live.bot.send({
		type: "segment",
		segment: segment({ segment_id: "a", speaker: "Alice", text: "Welcome, all.", start: 2, end: 4.25 }),
	});
	await live.bot.send({
		type: "segment",
		segment: segment({ segment_id: "c", speaker: "Carol", text: "still talking", start: 3, end: 5, completed: false }),
	});
	return live;
}

describe("GET /transcripts/{platform}/{native_meeting_id} without format", () => {
	it("answers exactly the transcript JSON it always has, with no attachment header", async () => {
		const { headers, user } = await userWithKey();
		const { code } = await spokenMeeting(headers);
		const res = await read(headers, code);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("application/json");
		expect(res.headers.get("content-disposition")).toBeNull();
		const body = await res.text();
		expect(body).toBe(
			JSON.stringify(await meetingTranscript(env, { userId: user.id }, { platform: "google_meet", native_meeting_id: code })),
		);
		expect(Object.keys(JSON.parse(body))).toEqual([
			"id",
			"platform",
			"native_meeting_id",
			"constructed_meeting_url",
			"status",
			"start_time",
			"end_time",
			"recordings",
			"notes",
			"completion_reason",
			// Issue 35: who was there (with stays and talk time) comes with the transcript.
			"participants",
			"segments",
		]);
	});
});

describe("GET /transcripts/{platform}/{native_meeting_id}?format=", () => {
	it("srt: numbered confirmed cues in start order, as an attachment named after the meeting", async () => {
		const { headers } = await userWithKey();
		const { code } = await spokenMeeting(headers);
		const res = await read(headers, code, "?format=srt");
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("application/x-subrip; charset=utf-8");
		expect(res.headers.get("content-disposition")).toBe(`attachment; filename="transcript-Google_Meet_${code}.srt"`);
		expect(res.headers.get("x-content-type-options")).toBe("nosniff");
		expect(res.headers.get("cache-control")).toBe("private, no-store");
		expect(await res.text()).toBe(
			"1\n00:00:02,000 --> 00:00:04,250\nAlice: Welcome, all.\n\n2\n01:02:05,500 --> 01:02:07,000\nBob: Then we ship.\n",
		);
	});

	it("vtt: a WEBVTT file with voice tags, escaping what a meeting's speaker and text carry", async () => {
		const { headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ speaker: "<i>Eve</i>", text: "a --> b & <b>c</b>\n\nd", start: 1.5, end: 3 }) });
		const res = await read(headers, code, "?format=vtt");
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("text/vtt; charset=utf-8");
		expect(res.headers.get("content-disposition")).toBe(`attachment; filename="transcript-Google_Meet_${code}.vtt"`);
		expect(await res.text()).toBe(
			"WEBVTT\n\n1\n00:00:01.500 --> 00:00:03.000\n<v &lt;i&gt;Eve&lt;/i&gt;>a --&gt; b &amp; &lt;b&gt;c&lt;/b&gt; d\n",
		);
	});

	it("txt: the title, status and times as they are at the request, then the confirmed lines", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		await createPlan(headers, { title: "Quarterly review", meeting_url: meetUrl(code) });
		const { meeting, bot } = await spokenMeeting(headers, code);
		await call("DELETE", `/bots/google_meet/${code}`, { headers });
		await bot.status("completed");
		const ended = await getMeeting(headers, meeting.id);
		expect(ended.status).toBe("completed");

		const res = await read(headers, code, "?format=txt");
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
		expect(res.headers.get("content-disposition")).toBe('attachment; filename="transcript-Quarterly_review.txt"');
		expect((await res.text()).split("\n")).toEqual([
			"Meeting: Quarterly review",
			"Platform: google_meet",
			`Meeting ID: ${code}`,
			"Status: completed",
			`Started: ${ended.start_time}`,
			`Ended: ${ended.end_time}`,
			"",
			"[00:00:02] Alice: Welcome, all.",
			"[01:02:05] Bob: Then we ship.",
			"",
		]);
	});

	it("json: the transcript answer plus the title and export time, drafts marked, as a file", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		await createPlan(headers, { title: "Café ☕ planning", meeting_url: meetUrl(code) });
		await spokenMeeting(headers, code);
		const plain = await json<Record<string, unknown>>(await read(headers, code));
		const before = Date.now();
		const res = await read(headers, code, "?format=json");
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
		expect(res.headers.get("content-disposition")).toBe(
			`attachment; filename="transcript-Cafe_planning.json"; filename*=UTF-8''transcript-Caf%C3%A9%20%E2%98%95%20planning.json`,
		);
		const file = await json<Record<string, unknown> & { segments: { segment_id: string; completed: boolean }[]; exported_at: string }>(res);
		// Issue 35: the file adds every speaker's talk time and the chat (none in this meeting) to the answer.
		expect(file).toEqual({
			...plain,
			title: "Café ☕ planning",
			exported_at: file.exported_at,
			speakers: [
				{ speaker: "Alice", talk_time_s: 2.3, participant_id: null },
				{ speaker: "Bob", talk_time_s: 1.5, participant_id: null },
			],
			chat: [],
		});
		expect(Date.parse(file.exported_at)).toBeGreaterThanOrEqual(before - 1000);
		expect(file.segments.map((s) => [s.segment_id, s.completed])).toEqual([
			["a", true],
			["c", false],
			["b", true],
		]);
	});

	it("names the file safely whatever the title says", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		await createPlan(headers, { title: '"; filename="evil.exe\r\n../x', meeting_url: meetUrl(code) });
		await liveMeeting(headers, code);
		const res = await read(headers, code, "?format=srt");
		expect(res.status).toBe(200);
		const disposition = res.headers.get("content-disposition") ?? "";
		expect(disposition).toBe(`attachment; filename="transcript-filename_evil.exe_._x.srt"`);
		expect(await res.text()).toBe("");
	});

	it("refuses an unknown format with 422 naming the valid ones", async () => {
		const { headers } = await userWithKey();
		const { code } = await liveMeeting(headers);
		for (const bad of ["?format=pdf", "?format=", "?format=SRT"]) {
			const res = await read(headers, code, bad);
			expect(res.status, bad).toBe(422);
			const body = await json<{ detail: { loc: string[]; msg: string }[] }>(res);
			expect(body.detail[0]?.loc).toEqual(["query", "format"]);
			expect(body.detail[0]?.msg).toBe("format must be one of: srt, vtt, txt, json");
		}
	});

	it("answers 404 for another user's meeting and for a meeting never started, in every format", async () => {
		const owner = await userWithKey();
		const other = await userWithKey();
		const { code } = await liveMeeting(owner.headers);
		const planned = meetCode();
		await createPlan(owner.headers, { meeting_url: meetUrl(planned) });
		for (const format of ["srt", "vtt", "txt", "json"]) {
			expect((await read(other.headers, code, `?format=${format}`)).status, format).toBe(404);
			expect((await read(owner.headers, planned, `?format=${format}`)).status, format).toBe(404);
		}
	});
});
