import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { spansOf } from "../../../src/recordings/media-response";
import { call, json } from "../support";
import { complete, concat, cut, objectsOfMeeting, recordingMeeting, recordingsOf, streamParts, webmFixture } from "./parts-helpers";

/** A completed recording of the real WebM video and audio files, each cut into parts at these offsets. */
async function streamedRecording(videoCuts = [7_000, 7_001, 20_000, 33_333], audioCuts = [6_000]) {
	const started = await recordingMeeting();
	const video = webmFixture("video");
	const audio = webmFixture("audio");
	const videoParts = cut(video, videoCuts);
	await streamParts(started.spawn, "video", videoParts);
	await streamParts(started.spawn, "audio", cut(audio, audioCuts));
	const res = await complete(started.spawn, {
		files: [
			{
				type: "video",
				format: "webm",
				parts: videoParts.length,
				duration_seconds: 3,
				metadata: { width: 1280, height: 720, frame_rate: 15 },
			},
			{ type: "audio", format: "webm", parts: audioCuts.length + 1, duration_seconds: 3, metadata: { codec: "opus" } },
		],
	});
	expect(res.status).toBe(200);
	const [recording] = await recordingsOf(started.headers, started.meeting.id);
	const fileOf = (type: string) => recording?.media_files.find((f) => f.type === type);
	return { ...started, video, audio, videoParts, recordingId: recording?.id ?? 0, videoFile: fileOf("video"), audioFile: fileOf("audio") };
}

const rawPath = (recordingId: number, fileId: number | undefined) => `/recordings/${recordingId}/media/${fileId}/raw`;

describe("a streamed media file served as one file", () => {
	it("serves a real WebM whole: its parts in order, byte for byte, as video/webm and audio/webm", async () => {
		const r = await streamedRecording();
		const video = await call("GET", rawPath(r.recordingId, r.videoFile?.id), { headers: r.headers });
		expect(video.status).toBe(200);
		expect(video.headers.get("content-type")).toBe("video/webm");
		expect(video.headers.get("content-length")).toBe(String(r.video.length));
		expect(video.headers.get("accept-ranges")).toBe("bytes");
		expect(video.headers.get("content-disposition")).toBe(`inline; filename="recording-${r.recordingId}-${r.videoFile?.id}.webm"`);
		expect(new Uint8Array(await video.arrayBuffer())).toEqual(r.video);
		const audio = await call("GET", rawPath(r.recordingId, r.audioFile?.id), { headers: r.headers });
		expect(audio.headers.get("content-type")).toBe("audio/webm");
		expect(new Uint8Array(await audio.arrayBuffer())).toEqual(r.audio);
	});

	it("answers ranges byte-exact against the concatenation, across part boundaries, and 416 past the end", async () => {
		const r = await streamedRecording();
		const size = r.video.length;
		// Boundaries at 7,000 / 7,001 / 20,000 / 33,333: a range inside one part, across one, across three, a one-byte part, the suffix.
		const ranges: [string, number, number][] = [
			["bytes=100-199", 100, 199],
			["bytes=6990-7010", 6990, 7010],
			["bytes=7000-7000", 7000, 7000],
			["bytes=6000-34000", 6000, 34000],
			["bytes=33333-", 33333, size - 1],
			["bytes=-500", size - 500, size - 1],
			[`bytes=0-${size + 1000}`, 0, size - 1],
		];
		for (const [header, start, end] of ranges) {
			const res = await call("GET", rawPath(r.recordingId, r.videoFile?.id), { headers: { ...r.headers, Range: header } });
			expect(res.status, header).toBe(206);
			expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`);
			expect(res.headers.get("content-length")).toBe(String(end - start + 1));
			expect(new Uint8Array(await res.arrayBuffer()), header).toEqual(r.video.slice(start, end + 1));
		}
		const past = await call("GET", rawPath(r.recordingId, r.videoFile?.id), { headers: { ...r.headers, Range: `bytes=${size}-` } });
		expect(past.status).toBe(416);
		expect(past.headers.get("content-range")).toBe(`bytes */${size}`);
		expect(await past.json()).toEqual({ detail: "Requested range not satisfiable" });
	});

	it("reads only the parts a range covers, and only the spans of them it needs", () => {
		const parts = [10, 1, 20, 5].map((bytes, i) => ({ storageKey: `p${i + 1}`, bytes }));
		expect(spansOf(parts, 0, 35)).toEqual([
			{ key: "p1", offset: 0, length: 10, whole: true },
			{ key: "p2", offset: 0, length: 1, whole: true },
			{ key: "p3", offset: 0, length: 20, whole: true },
			{ key: "p4", offset: 0, length: 5, whole: true },
		]);
		expect(spansOf(parts, 9, 12)).toEqual([
			{ key: "p1", offset: 9, length: 1, whole: false },
			{ key: "p2", offset: 0, length: 1, whole: true },
			{ key: "p3", offset: 0, length: 2, whole: false },
		]);
		expect(spansOf(parts, 15, 15)).toEqual([{ key: "p3", offset: 4, length: 1, whole: false }]);
	});

	it("shows the video in master?type=video and serves it through the signed public link", async () => {
		const r = await streamedRecording();
		const master = await json<Record<string, unknown>>(
			await call("GET", `/recordings/${r.recordingId}/master?type=video`, { headers: r.headers }),
		);
		expect(master).toMatchObject({
			media_file_id: r.videoFile?.id,
			type: "video",
			format: "webm",
			content_type: "video/webm",
			file_size_bytes: r.video.length,
			duration_seconds: 3,
			status: "completed",
			finalized: true,
		});
		const download = await json<{ download_url: string; filename: string; content_type: string; file_size_bytes: number }>(
			await call("GET", `/recordings/${r.recordingId}/media/${r.videoFile?.id}/download`, { headers: r.headers }),
		);
		expect(download).toMatchObject({ filename: `recording-${r.recordingId}-${r.videoFile?.id}.webm`, content_type: "video/webm" });
		const link = new URL(download.download_url);
		const whole = await call("GET", `${link.pathname}${link.search}`);
		expect(whole.status).toBe(200);
		expect(whole.headers.get("content-type")).toBe("video/webm");
		expect(whole.headers.get("content-disposition")).toContain("attachment;");
		expect(new Uint8Array(await whole.arrayBuffer())).toEqual(r.video);
		const part = await call("GET", `${link.pathname}${link.search}`, { headers: { Range: "bytes=6999-7001" } });
		expect(part.status).toBe(206);
		expect(new Uint8Array(await part.arrayBuffer())).toEqual(r.video.slice(6999, 7002));
	});

	it("serves a file in progress as its gapless parts so far", async () => {
		const { headers, meeting, spawn } = await recordingMeeting();
		const video = webmFixture("video");
		const parts = cut(video, [9_000, 18_000]);
		await streamParts(spawn, "video", parts.slice(0, 2));
		const [recording] = await recordingsOf(headers, meeting.id);
		const res = await call("GET", rawPath(recording?.id ?? 0, recording?.media_files[0]?.id), { headers });
		expect(new Uint8Array(await res.arrayBuffer())).toEqual(concat(parts.slice(0, 2)));
	});

	it("is deleted with every part object and row; the meeting's recording prefix is then empty", async () => {
		const r = await streamedRecording();
		expect((await objectsOfMeeting(r.user.id, r.meeting.id)).length).toBe(7);
		// An object whose row was never written (its put landed, the row's did not) goes too.
		const stray = `recordings/${r.user.id}/${r.meeting.id}/streams/${r.recordingId}/video/00099.webm`;
		await env.RECORDINGS.put(stray, new Uint8Array(4));
		const res = await call("DELETE", `/recordings/${r.recordingId}`, { headers: r.headers });
		expect(res.status).toBe(200);
		// The receipt counts the 7 part objects and the stray one, and every row that went.
		expect(await res.json()).toEqual({
			status: "deleted",
			recording_id: r.recordingId,
			removed: { objects: 8, database: { recordings: 1, media_files: 2, media_file_parts: 7 } },
			objects_left: 0,
		});
		expect(await objectsOfMeeting(r.user.id, r.meeting.id)).toEqual([]);
		const rows = await env.DB.prepare(
			"SELECT (SELECT count(*) FROM media_files WHERE recording_id = ?1) AS files, (SELECT count(*) FROM media_file_parts WHERE media_file_id IN (?2, ?3)) AS parts",
		)
			.bind(r.recordingId, r.videoFile?.id, r.audioFile?.id)
			.first<{ files: number; parts: number }>();
		expect(rows).toEqual({ files: 0, parts: 0 });
	});
});
