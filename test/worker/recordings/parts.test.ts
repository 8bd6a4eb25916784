import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RECORDING_PART_MAX_BYTES } from "../../../src/bot-channel/protocol";
import { abandonedRecordingsQuery } from "../../../src/recordings/part-store";
import { ABANDONED_RECORDING_MESSAGE, completeAbandonedRecordings } from "../../../src/recordings/parted-files";
import { getMeeting } from "../meetings/helpers";
import { expectIndexedReads } from "../query-plan";
import { call, json } from "../support";
import {
	complete,
	concat,
	cut,
	objectsOfMeeting,
	putPart,
	recordingMeeting,
	recordingsOf,
	streamParts,
	webmFixture,
} from "./parts-helpers";
import { sineWav } from "./wav-fixture";

const partRows = async (meetingId: number) =>
	(
		await env.DB.prepare(
			`SELECT p.part_number AS n, p.bytes, p.media_seconds AS seconds, f.type FROM media_file_parts p
			JOIN media_files f ON f.id = p.media_file_id JOIN recordings r ON r.id = f.recording_id
			WHERE r.meeting_id = ? ORDER BY f.type, p.part_number`,
		)
			.bind(meetingId)
			.all<{ n: number; bytes: number; seconds: number; type: string }>()
	).results;

const videoMetadata = { width: 1280, height: 720, frame_rate: 15, codec: "vp8", audio_codec: "opus" };

async function endMeeting(headers: Record<string, string>, code: string, meetingId: number) {
	expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
	expect(await getMeeting(headers, meetingId)).toMatchObject({ status: "completed" });
}

describe("parts of a streamed recording", () => {
	it("opens the recording in progress with the first part, and its files follow their gapless parts", async () => {
		const { headers, meeting, spawn } = await recordingMeeting();
		const [one, two, three] = cut(webmFixture("video"), [10_000, 25_000]);
		expect((await putPart(spawn, "video", 1, one ?? new Uint8Array(), { seconds: 1 })).status).toBe(201);
		let [recording] = await recordingsOf(headers, meeting.id);
		expect(recording).toMatchObject({ status: "in_progress", error_message: null });
		expect(recording?.media_files).toEqual([
			expect.objectContaining({ type: "video", format: "webm", file_size_bytes: 10_000, duration_seconds: 1, metadata: videoMetadata }),
		]);
		// Part 3 before part 2: the file is still part 1 only, until 2 fills the gap.
		expect((await putPart(spawn, "video", 3, three ?? new Uint8Array(), { seconds: 3 })).status).toBe(201);
		[recording] = await recordingsOf(headers, meeting.id);
		expect(recording?.media_files[0]).toMatchObject({ file_size_bytes: 10_000, duration_seconds: 1 });
		expect((await putPart(spawn, "video", 2, two ?? new Uint8Array(), { seconds: 2 })).status).toBe(201);
		[recording] = await recordingsOf(headers, meeting.id);
		expect(recording?.media_files[0]).toMatchObject({ file_size_bytes: webmFixture("video").length, duration_seconds: 3 });
		// Audio opens its own file in the same recording.
		await streamParts(spawn, "audio", cut(webmFixture("audio"), [4_000]));
		const recordings = await recordingsOf(headers, meeting.id);
		expect(recordings).toHaveLength(1);
		expect(recordings[0]?.media_files.map((f) => f.type).sort()).toEqual(["audio", "video"]);
	});

	it("opens one recording and one file of each type when first parts arrive at once", async () => {
		const { headers, meeting, spawn } = await recordingMeeting();
		const video = cut(webmFixture("video"), [10_000, 20_000]);
		const audio = cut(webmFixture("audio"), [5_000]);
		const answers = await Promise.all([
			...video.map((part, i) => putPart(spawn, "video", i + 1, part, { seconds: i + 1 })),
			...audio.map((part, i) => putPart(spawn, "audio", i + 1, part, { seconds: i + 1 })),
		]);
		expect(answers.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
		const recordings = await recordingsOf(headers, meeting.id);
		expect(recordings).toHaveLength(1);
		const byType = Object.fromEntries((recordings[0]?.media_files ?? []).map((f) => [f.type, f.file_size_bytes]));
		expect(byType).toEqual({ video: webmFixture("video").length, audio: webmFixture("audio").length });
	});

	it("completes a streamed file the completion leaves out from its gapless parts", async () => {
		const { headers, meeting, spawn } = await recordingMeeting();
		await streamParts(spawn, "video", cut(webmFixture("video"), [10_000]));
		await streamParts(spawn, "audio", cut(webmFixture("audio"), [5_000]), 2);
		const res = await complete(spawn, { files: [{ type: "video", format: "webm", parts: 2, duration_seconds: 3, metadata: {} }] });
		expect(res.status).toBe(200);
		const [recording] = await recordingsOf(headers, meeting.id);
		expect(recording?.status).toBe("completed");
		expect(recording?.media_files.find((f) => f.type === "audio")).toMatchObject({
			file_size_bytes: webmFixture("audio").length,
			duration_seconds: 4,
			metadata: { codec: "opus" },
		});
	});

	it("replaces a part sent again (its length may change) at the same object, leaving nothing behind", async () => {
		const { user, headers, meeting, spawn } = await recordingMeeting();
		const video = webmFixture("video");
		await streamParts(spawn, "video", cut(video, [8_000, 20_000]));
		const before = await objectsOfMeeting(user.id, meeting.id);
		expect(before).toHaveLength(3);
		// The encoder closed its last cluster: part 3 grows, and part 1's header is rewritten.
		const longer = concat([video.slice(20_000), new Uint8Array([1, 2, 3])]);
		expect((await putPart(spawn, "video", 3, longer, { seconds: 3.5 })).status).toBe(201);
		const rewritten = video.slice(0, 8_000);
		rewritten[100] = (rewritten[100] ?? 0) ^ 0xff;
		expect((await putPart(spawn, "video", 1, rewritten, { seconds: 1 })).status).toBe(201);
		expect(await objectsOfMeeting(user.id, meeting.id)).toEqual(before);
		expect((await partRows(meeting.id)).map((p) => [p.n, p.bytes, p.seconds])).toEqual([
			[1, 8_000, 1],
			[2, 12_000, 2],
			[3, longer.length, 3.5],
		]);
		const [recording] = await recordingsOf(headers, meeting.id);
		expect(recording?.media_files[0]).toMatchObject({ file_size_bytes: video.length + 3, duration_seconds: 3.5 });
		const first = await env.RECORDINGS.get(before[0] ?? "");
		expect(new Uint8Array(await (first as R2ObjectBody).arrayBuffer())).toEqual(rewritten);
	});

	it("completes with exact parts and metadata, drops higher parts, and takes no part after", async () => {
		const { user, headers, meeting, spawn } = await recordingMeeting();
		await streamParts(spawn, "video", cut(webmFixture("video"), [10_000, 20_000, 30_000]));
		await streamParts(spawn, "audio", cut(webmFixture("audio"), [5_000]));
		const metadata = { width: 1280, height: 720, frame_rate: 15, codec: "vp8", audio_codec: "opus" };
		const res = await complete(spawn, {
			files: [
				{ type: "video", format: "webm", parts: 3, duration_seconds: 2.95, metadata },
				{ type: "audio", format: "webm", parts: 2, duration_seconds: 3.02, metadata: { codec: "opus", sample_rate: 48_000, channels: 1 } },
			],
		});
		expect(res.status).toBe(200);
		const answer = await json<{ recording_id: number; status: string; media_files: { type: string; parts: number }[] }>(res);
		expect(answer.status).toBe("completed");
		expect(answer.media_files.map((f) => [f.type, f.parts])).toEqual([
			["video", 3],
			["audio", 2],
		]);
		const [recording] = await recordingsOf(headers, meeting.id);
		expect(recording).toMatchObject({ id: answer.recording_id, status: "completed", error_message: null });
		const video = recording?.media_files.find((f) => f.type === "video");
		expect(video).toMatchObject({ format: "webm", file_size_bytes: 30_000, duration_seconds: 2.95, metadata });
		expect(recording?.media_files.find((f) => f.type === "audio")).toMatchObject({
			file_size_bytes: webmFixture("audio").length,
			duration_seconds: 3.02,
			metadata: { codec: "opus", sample_rate: 48_000, channels: 1 },
		});
		// Part 4 of the video is not in the file: its row and its object are gone.
		expect((await partRows(meeting.id)).filter((p) => p.type === "video").map((p) => p.n)).toEqual([1, 2, 3]);
		expect(await objectsOfMeeting(user.id, meeting.id)).toHaveLength(5);
		// A completed recording takes no more parts; completing again says the same.
		const late = await putPart(spawn, "video", 4, new Uint8Array(10), { seconds: 4 });
		expect(late.status).toBe(409);
		expect(await late.json()).toEqual({ detail: "This bot already completed its recording: it takes no more parts" });
		expect((await complete(spawn, { files: [{ type: "video", format: "webm", parts: 3, duration_seconds: 2.95, metadata }] })).status).toBe(
			200,
		);
	});

	it("refuses a completion with a gap (409 naming the parts), and takes it once they are sent", async () => {
		const { headers, meeting, spawn } = await recordingMeeting();
		const parts = cut(webmFixture("video"), [5_000, 10_000, 15_000]);
		for (const n of [1, 4]) expect((await putPart(spawn, "video", n, parts[n - 1] ?? new Uint8Array(), { seconds: n })).status).toBe(201);
		const files = [{ type: "video", format: "webm", parts: 4, duration_seconds: 3, metadata: {} }];
		const gap = await complete(spawn, { files });
		expect(gap.status).toBe(409);
		expect(await gap.json()).toEqual({ detail: "The video file lacks part 2, 3: send them and complete again" });
		expect((await recordingsOf(headers, meeting.id))[0]?.status).toBe("in_progress");
		const noAudio = await complete(spawn, { files: [{ ...files[0], type: "audio" }] });
		expect(noAudio.status).toBe(409);
		expect(await noAudio.json()).toEqual({ detail: "No part of the audio file was sent" });
		for (const n of [2, 3]) expect((await putPart(spawn, "video", n, parts[n - 1] ?? new Uint8Array(), { seconds: n })).status).toBe(201);
		expect((await complete(spawn, { files })).status).toBe(200);
		expect((await recordingsOf(headers, meeting.id))[0]?.media_files[0]?.file_size_bytes).toBe(webmFixture("video").length);
	});

	it("answers a completion without any part with 409, and a malformed one with 422 naming the field", async () => {
		const { spawn } = await recordingMeeting();
		const none = await complete(spawn, { files: [{ type: "video", format: "webm", parts: 1, duration_seconds: 1, metadata: {} }] });
		expect(none.status).toBe(409);
		expect(await none.json()).toEqual({ detail: "No part of this recording was sent" });
		const cases: [unknown, string][] = [
			[{ files: [] }, "files"],
			[{ files: [{ type: "screen", format: "webm", parts: 1, duration_seconds: 1, metadata: {} }] }, "type"],
			[{ files: [{ type: "video", format: "mp4", parts: 1, duration_seconds: 1, metadata: {} }] }, "format"],
			[{ files: [{ type: "video", format: "webm", parts: 0, duration_seconds: 1, metadata: {} }] }, "parts"],
			[{ files: [{ type: "video", format: "webm", parts: 1, duration_seconds: -1, metadata: {} }] }, "duration_seconds"],
		];
		for (const [body, field] of cases) {
			const res = await complete(spawn, body);
			expect(res.status, JSON.stringify(body)).toBe(422);
			const detail = (await json<{ detail: { loc: (string | number)[] }[] }>(res)).detail;
			expect(detail[0]?.loc).toContain(field);
		}
		const twice = await complete(spawn, {
			files: [0, 1].map(() => ({ type: "video", format: "webm", parts: 1, duration_seconds: 1, metadata: {} })),
		});
		expect(twice.status).toBe(422);
		const notJson = await complete(spawn, "{");
		expect(notJson.status).toBe(422);
	});
});

describe("what a part upload refuses", () => {
	it("refuses bad tokens, numbers, types, lengths and media seconds, storing nothing", async () => {
		const { user, meeting, spawn } = await recordingMeeting();
		const other = await recordingMeeting();
		const webm = webmFixture("audio").slice(0, 2_000);
		const cases: [Promise<Response>, number][] = [
			[putPart(spawn, "audio", 1, webm, { token: other.spawn.channel.token }), 401],
			[putPart(spawn, "audio", 1, webm, { token: "not-a-token" }), 401],
			[putPart(spawn, "screen", 1, webm), 422],
			[putPart(spawn, "audio", 0, webm), 422],
			[putPart(spawn, "audio", "01", webm), 422],
			[putPart(spawn, "audio", 10_001, webm), 422],
			[putPart(spawn, "audio", 1, webm, { seconds: null }), 422],
			[putPart(spawn, "audio", 1, webm, { seconds: "soon" }), 422],
			[putPart(spawn, "audio", 1, webm, { seconds: -1 }), 422],
			// Part 1 opens the file: it must be the start of a WebM file.
			[putPart(spawn, "audio", 1, new TextEncoder().encode("x".repeat(100))), 422],
			[putPart(spawn, "audio", 2, webm, { headers: { "content-length": String(RECORDING_PART_MAX_BYTES + 1) } }), 413],
		];
		for (const [answer, status] of cases) {
			const res = await answer;
			expect(res.status).toBe(status);
			expect(await json(res)).toHaveProperty("detail");
		}
		expect(await partRows(meeting.id)).toEqual([]);
		expect(await objectsOfMeeting(user.id, meeting.id)).toEqual([]);
	});

	it("is 403 for a meeting sent without recording, and 410 past the grace after the meeting ended", async () => {
		const plain = await recordingMeeting({});
		expect(plain.spawn.recording_parts_url).toBeUndefined();
		const base = `https://gateway.test/internal/recordings/${plain.meeting.id}/parts`;
		const res = await putPart({ ...plain.spawn, recording_parts_url: base }, "audio", 1, webmFixture("audio"));
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ detail: "Recording was not enabled for this meeting" });

		const { headers, code, meeting, spawn } = await recordingMeeting();
		expect((await putPart(spawn, "audio", 1, webmFixture("audio"))).status).toBe(201);
		await endMeeting(headers, code, meeting.id);
		// Just after the end, the bot's last parts and its completion are still taken.
		expect((await putPart(spawn, "audio", 2, new Uint8Array(10), { seconds: 3 })).status).toBe(201);
		await env.DB.prepare("UPDATE meetings SET end_time = ? WHERE id = ?")
			.bind(new Date(Date.now() - 301_000).toISOString(), meeting.id)
			.run();
		const late = await putPart(spawn, "audio", 3, new Uint8Array(10));
		expect(late.status).toBe(410);
		const lateCompletion = await complete(spawn, {
			files: [{ type: "audio", format: "webm", parts: 2, duration_seconds: 3, metadata: {} }],
		});
		expect(lateCompletion.status).toBe(410);
	});

	it("is 411 without a length (a streamed body)", async () => {
		const { spawn } = await recordingMeeting();
		const bytes = webmFixture("audio");
		const body = new ReadableStream<Uint8Array>({
			start(controller) {
				controller.enqueue(bytes);
				controller.close();
			},
		});
		const res = await SELF.fetch(`https://gateway.test/internal/recordings/${spawn.meeting_id}/parts/audio/1`, {
			method: "PUT",
			headers: { authorization: `Bearer ${spawn.channel.token}`, "x-media-seconds": "1" },
			body,
		});
		expect(res.status).toBe(411);
		expect(await res.json()).toEqual({ detail: "Content-Length is required" });
	});
});

describe("a recording whose bot never completed it", () => {
	it("is completed by the Worker once the meeting ended and the grace passed, from its gapless parts", async () => {
		const { user, headers, code, meeting, spawn } = await recordingMeeting();
		const video = webmFixture("video");
		const parts = cut(video, [10_000, 20_000, 30_000]);
		// Parts 1, 2 and 4 landed: part 3 was lost with the host, so part 4 cannot be played after 2.
		for (const n of [1, 2, 4])
			expect((await putPart(spawn, "video", n, parts[n - 1] ?? new Uint8Array(), { seconds: n * 10 })).status).toBe(201);
		// Audio: part 2 only, no part 1: nothing of it can be played.
		expect((await putPart(spawn, "audio", 2, new Uint8Array(50), { seconds: 20 })).status).toBe(201);
		await endMeeting(headers, code, meeting.id);

		// Within the grace the bot may still complete it: the sweep leaves it.
		await completeAbandonedRecordings(env, new Date());
		expect((await recordingsOf(headers, meeting.id))[0]?.status).toBe("in_progress");

		const ended = Date.parse((await getMeeting(headers, meeting.id)).end_time ?? "");
		await completeAbandonedRecordings(env, new Date(ended + 301_000));
		const [recording] = await recordingsOf(headers, meeting.id);
		expect(recording).toMatchObject({ status: "completed", error_message: ABANDONED_RECORDING_MESSAGE });
		expect(recording?.media_files).toEqual([
			expect.objectContaining({ type: "video", format: "webm", file_size_bytes: 20_000, duration_seconds: 20, metadata: videoMetadata }),
		]);
		// Only the two parts of the file are left in the bucket and in D1.
		expect(await objectsOfMeeting(user.id, meeting.id)).toHaveLength(2);
		expect((await partRows(meeting.id)).map((p) => [p.type, p.n])).toEqual([
			["video", 1],
			["video", 2],
		]);
		const bytes = await call("GET", `/recordings/${recording?.id}/media/${recording?.media_files[0]?.id}/raw`, { headers });
		expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(video.slice(0, 20_000));
	});

	it("fails a recording of which no part 1 was stored", async () => {
		const { headers, code, meeting, spawn } = await recordingMeeting();
		expect((await putPart(spawn, "audio", 2, new Uint8Array(50), { seconds: 20 })).status).toBe(201);
		await endMeeting(headers, code, meeting.id);
		const ended = Date.parse((await getMeeting(headers, meeting.id)).end_time ?? "");
		await completeAbandonedRecordings(env, new Date(ended + 301_000));
		const [recording] = await recordingsOf(headers, meeting.id);
		expect(recording).toMatchObject({
			status: "failed",
			error_message: "The bot stored no playable part of this recording",
			media_files: [],
		});
	});
});

describe("a video recording with WAV audio", () => {
	it("keeps the bot's WAV upload in the recording its video parts opened", async () => {
		const { headers, meeting, spawn } = await recordingMeeting({ recording_enabled: true, recording_config: { audio_format: "wav" } });
		expect(spawn.recording).toMatchObject({ video: true, audio_format: "wav" });
		await streamParts(spawn, "video", cut(webmFixture("video"), [20_000]));
		const wav = sineWav(0.5);
		const res = await SELF.fetch(`https://gateway.test/internal/recordings/${meeting.id}`, {
			method: "PUT",
			headers: { authorization: `Bearer ${spawn.channel.token}`, "content-length": String(wav.length) },
			body: wav,
		});
		expect(res.status).toBe(201);
		let [recording] = await recordingsOf(headers, meeting.id);
		expect(recording?.status).toBe("in_progress");
		expect(recording?.media_files.map((f) => [f.type, f.format]).sort()).toEqual([
			["audio", "wav"],
			["video", "webm"],
		]);
		expect(
			(await complete(spawn, { files: [{ type: "video", format: "webm", parts: 2, duration_seconds: 3, metadata: {} }] })).status,
		).toBe(200);
		[recording] = await recordingsOf(headers, meeting.id);
		expect(recording?.status).toBe("completed");
		expect(recording?.media_files).toHaveLength(2);
	});
});

describe("what the sweep reads", () => {
	it("finds recordings in progress through their partial index, never scanning recordings", async () => {
		const { sql } = abandonedRecordingsQuery(env, new Date().toISOString(), 20).toSQL();
		await expectIndexedReads({ sweep: sql }, ["recordings"]);
	});
});
