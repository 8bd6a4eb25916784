/**
 * A recorded sandbox meeting on each platform, streamed in parts as the Worker takes them
 * (docs/bot-channel.md#recording-parts; the providers' receiver stands in for the Worker): the
 * parts joined are a WebM video of what the bot saw, VP8 at the plan's size, as long as the bot was
 * in the call, whose picture changes when the speaker does, and an Opus audio file. The header
 * parts were sent again once ffmpeg finished the files, so the joined files carry their Duration
 * and Cues. A recording at its cap stops there and says so; WAV asked for is still a WAV.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type Platform, type RecordingPlan, VIDEO_FRAME_RATE, VIDEO_RESOLUTIONS } from "../../src/bot-channel/protocol.ts";
import { until } from "../../test/shared/wait.ts";
import { CHANNEL_TOKEN, spawnBot, useProviders, useWorld } from "./harness.ts";
import { frameAt, hasCues, levels, pixelsChanged, probe, tagSeconds, withFile } from "./media-files.ts";
import { applied, finalStatus, segmentsOf, statusesOf } from "./room.ts";

const PLAN_720P: RecordingPlan = { video: true, ...VIDEO_RESOLUTIONS["720p"], frame_rate: VIDEO_FRAME_RATE, audio_format: "opus" };

const SPEAKERS = [
	{ name: "Ada Lovelace", lines: ["The engine computes the numbers in order.", "Then it prints the table for everyone."] },
	{ name: "Grace Hopper", lines: ["The compiler is ready for review today.", "We ship the release after this meeting."] },
];

describe("a recorded meeting streamed in parts", () => {
	const world = useWorld();
	const providers = useProviders();

	for (const platform of ["google_meet", "zoom", "teams"] as Platform[]) {
		it(`on ${platform}: a playable VP8 video of the call at 720p whose picture follows the speaker, and Opus audio`, async () => {
			const name = `meeting-${platform.replace("_", "-")}`;
			const bot = await spawnBot(
				world,
				platform,
				{ direct_join: true, speech_start_ms: 1_500, speech_gap_ms: 1_500, participants: SPEAKERS },
				{ recording_enabled: true, recording: PLAN_720P, recording_parts_url: providers.partsUrl(name) },
			);
			await world.room.until(bot.meetingId, (r) => segmentsOf(r).some((s) => s.completed && s.speaker === "Grace Hopper"));
			// More than one part a file, so parts are joined and the first is sent again once finished.
			await until(
				"two video parts shipped",
				() => providers.parts.filter((p) => p.recording === name && p.type === "video").length >= 2,
				60_000,
			);
			const activeAt = Date.parse(statusesOf(world.room.received(bot.meetingId)).find((s) => s.status === "active")?.timestamp ?? "");
			const leaveAt = Date.now();
			world.room.command(bot.meetingId, { action: "leave" });
			expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed" });
			const inCall = (leaveAt - activeAt) / 1000;

			const received = providers.parts.filter((p) => p.recording === name);
			for (const p of received) {
				expect(p.authorization).toBe(`Bearer ${CHANNEL_TOKEN}`);
				expect(p.contentType).toBe(p.type === "video" ? "video/webm" : "audio/webm");
				expect(p.contentLength).toBe(p.body.length);
				expect(p.mediaSeconds).toBeGreaterThanOrEqual(0);
			}
			// Part 1 (the header) was sent again after ffmpeg finished the file: its bytes changed.
			const firstVideo = received.filter((p) => p.type === "video" && p.n === 1);
			expect(firstVideo.length).toBeGreaterThanOrEqual(2);
			expect(firstVideo.at(-1)?.body.equals(firstVideo[0]?.body ?? Buffer.alloc(0))).toBe(false);

			const completion = providers.completions.find((c) => c.recording === name)?.completion;
			const videoDone = completion?.files.find((f) => f.type === "video");
			const audioDone = completion?.files.find((f) => f.type === "audio");
			expect(videoDone?.parts).toBe(Math.max(...received.filter((p) => p.type === "video").map((p) => p.n)));
			expect(videoDone?.metadata).toMatchObject({
				width: 1280,
				height: 720,
				frame_rate: VIDEO_FRAME_RATE,
				codec: "vp8",
				audio_codec: "opus",
			});
			expect(audioDone?.metadata).toMatchObject({ codec: "opus", channels: 1 });

			const video = providers.joined(name, "video");
			expect(hasCues(video)).toBe(true);
			await withFile(video, async (file) => {
				const info = await probe(file);
				const stream = info.streams.find((s) => s.codec_type === "video");
				expect(stream).toMatchObject({ codec_name: "vp8", width: 1280, height: 720, r_frame_rate: `${VIDEO_FRAME_RATE}/1` });
				expect(info.streams.find((s) => s.codec_type === "audio")?.codec_name).toBe("opus");
				// The header's Duration (ffprobe reads it without decoding) is the time the bot was in the call.
				expect(info.duration).not.toBeNull();
				expect(Math.abs((info.duration ?? 0) - inCall)).toBeLessThanOrEqual(2);
				expect(Math.abs((tagSeconds(stream?.tags?.DURATION) ?? 0) - inCall)).toBeLessThanOrEqual(2);
				expect(Math.abs((info.duration ?? 0) - (videoDone?.duration_seconds ?? 0))).toBeLessThan(0.1);

				// One frame while each speaker's caption shows: the picture differs (who speaks is shown).
				const shown = world.sandbox.observed(bot.nativeId)?.captions_shown ?? [];
				const at = (speaker: string) => ((shown.find((c) => c.speaker === speaker)?.at ?? 0) - activeAt) / 1000 + 0.8;
				const ada = await frameAt(file, at("Ada Lovelace"));
				const grace = await frameAt(file, at("Grace Hopper"));
				expect(ada.length).toBe(1280 * 720);
				expect(levels(ada)).toBeGreaterThan(8);
				expect(pixelsChanged(ada, grace)).toBeGreaterThan(400);
			});

			await withFile(providers.joined(name, "audio"), async (file) => {
				const info = await probe(file);
				expect(info.streams).toEqual([expect.objectContaining({ codec_type: "audio", codec_name: "opus" })]);
				expect(Math.abs((info.duration ?? 0) - inCall)).toBeLessThanOrEqual(2);
				// Compressed speech: far below the WAV's 1.9 MB a minute.
				expect(providers.joined(name, "audio").length / ((info.duration ?? 1) / 60)).toBeLessThan(400_000);
			});
			// The host keeps nothing of it: its files went with the bot.
			expect(bot.session.recordingFiles.every((f) => !existsSync(f))).toBe(true);
		});
	}

	it("records 1080p on a screen grown so the page is at least the video's size", async () => {
		const name = "full-hd";
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Alan Turing", lines: ["Hello there."] }] },
			{
				recording_enabled: true,
				recording: { ...PLAN_720P, ...VIDEO_RESOLUTIONS["1080p"] },
				recording_parts_url: providers.partsUrl(name),
			},
		);
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		await until("a video part shipped", () => providers.parts.some((p) => p.recording === name && p.type === "video"), 30_000);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		await withFile(providers.joined(name, "video"), async (file) => {
			expect((await probe(file)).streams.find((s) => s.codec_type === "video")).toMatchObject({
				codec_name: "vp8",
				width: 1920,
				height: 1080,
			});
			// The page (at least 1920x1080 on the grown screen) fills the frame but for thin bands of padding
			// at its sides; today's 1280x900 screen's page, blown up to 1080 rows, would leave 110 pixels each side.
			const frame = await frameAt(file, 1);
			const middle = frame.subarray(540 * 1920, 541 * 1920);
			expect(middle.findIndex((gray) => gray > 16)).toBeLessThan(40);
		});
		expect(
			providers.completions.find((c) => c.recording === name)?.completion.files.find((f) => f.type === "video")?.metadata,
		).toMatchObject({
			width: 1920,
			height: 1080,
		});
	});

	it("stops at the recording's cap, says so on the channel, finishes the files and ships them whole", async () => {
		const name = "capped";
		// A still meeting page costs VP8 little: a small cap, and speech whose captions change the picture.
		const cap = 120_000;
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: SPEAKERS },
			{ recording_enabled: true, recording: PLAN_720P, recording_parts_url: providers.partsUrl(name), recording_max_bytes: cap },
		);
		const stopped = await world.room.until(bot.meetingId, (r) => applied(r).find((m) => m.type === "recording"));
		expect(stopped).toMatchObject({ type: "recording", state: "stopped", reason: "size_limit" });
		const bytes = stopped.type === "recording" ? stopped.bytes : 0;
		expect(bytes).toBeLessThanOrEqual(cap);
		expect(statusesOf(world.room.received(bot.meetingId)).at(-1)?.status).toBe("active");
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		const video = providers.joined(name, "video");
		const audio = providers.joined(name, "audio");
		expect(video.length + audio.length).toBe(bytes);
		expect(
			providers.completions
				.find((c) => c.recording === name)
				?.completion.files.map((f) => f.type)
				.sort(),
		).toEqual(["audio", "video"]);
		await withFile(video, async (file) => expect((await probe(file)).duration).toBeGreaterThan(0));
	});

	it("records audio alone as Opus parts when the spawn has no plan, trying a part the store refused again", async () => {
		const name = "audio-alone";
		// The first two requests (the first audio part and its first retry) meet a store that is down.
		providers.failRecording(name, 2);
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Alan Turing", lines: ["Hello there, this is a short meeting."] }] },
			{ recording_enabled: true, recording_parts_url: providers.partsUrl(name) },
		);
		await until("an audio part taken", () => providers.parts.some((p) => p.recording === name), 30_000);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(providers.refused).toEqual([`/recordings/${name}/parts/audio/1`, `/recordings/${name}/parts/audio/1`]);
		expect(providers.parts.filter((p) => p.recording === name).every((p) => p.type === "audio")).toBe(true);
		const completion = providers.completions.find((c) => c.recording === name)?.completion;
		expect(completion?.files).toEqual([
			expect.objectContaining({ type: "audio", format: "webm", metadata: expect.objectContaining({ codec: "opus" }) }),
		]);
		await withFile(providers.joined(name, "audio"), async (file) => {
			expect((await probe(file)).streams).toEqual([expect.objectContaining({ codec_type: "audio", codec_name: "opus" })]);
		});
	});

	it("leaves, and reports its end, when the store refuses every part", async () => {
		const name = "store-down";
		providers.failRecording(name, Number.POSITIVE_INFINITY);
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Alan Turing" }] },
			{ recording_enabled: true, recording_parts_url: providers.partsUrl(name) },
		);
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		await until(
			"a part refused and tried again",
			() => providers.refused.filter((path) => path === `/recordings/${name}/parts/audio/1`).length >= 2,
			30_000,
		);
		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed" });
		expect(providers.parts.some((p) => p.recording === name)).toBe(false);
		expect(world.logs.some((line) => line.includes(`bot ${bot.meetingId}: recording audio part 1: answered 503`))).toBe(true);
	});

	it("records the WAV of old when the plan asks for it, with no parts", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Alan Turing", lines: ["Hello there."] }] },
			{
				recording_enabled: true,
				recording: { ...PLAN_720P, audio_format: "wav" },
				recording_parts_url: providers.partsUrl("asked-wav"),
				recording_upload_url: `${providers.url}/recordings/asked.wav`,
			},
		);
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		await until("a second of audio recorded", () => (bot.session.recordingPath ? existsSync(bot.session.recordingPath) : false));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		const upload = providers.uploads.find((u) => u.path === "/recordings/asked.wav");
		expect(upload?.contentType).toBe("audio/wav");
		expect(upload?.body.subarray(0, 4).toString()).toBe("RIFF");
		expect(providers.parts.some((p) => p.recording === "asked-wav")).toBe(false);
	});
});
