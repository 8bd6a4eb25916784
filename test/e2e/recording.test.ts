/**
 * A real bot records a sandbox meeting on each platform: the recording holds a WebM video of
 * what a participant saw (the picture changes when the speaker does) and a compressed audio
 * file, both of the meeting's length, both served with Range through the public routes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { frameAt, playedSeconds, probe, steadyChange } from "../../bot-host/test/media-files.ts";
import { eventually } from "../shared/wait";
import { apiAt, botGateway, nativeId, newAccount, sandboxObserved, sandboxScenario } from "./client";

type Platform = "google_meet" | "zoom" | "teams";

interface MediaFile {
	id: number;
	type: string;
	format: string;
	file_size_bytes: number;
	duration_seconds: number;
	metadata: Record<string, unknown>;
}
interface Recording {
	id: number;
	status: string;
	error_message: string | null;
	media_files: MediaFile[];
}

const dir = mkdtempSync(path.join(os.tmpdir(), "e2e-recording-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bytesOf(key: string, recordingId: number, fileId: number, range?: string) {
	const res = await fetch(`${botGateway()}/recordings/${recordingId}/media/${fileId}/raw`, {
		headers: { "X-API-Key": key, ...(range ? { Range: range } : {}) },
	});
	return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe.each(["google_meet", "zoom", "teams"] as Platform[])("a recorded %s sandbox meeting", (platform) => {
	it("keeps a playable video whose picture follows the speaker and an Opus audio file, each the meeting's length, served with Range", async () => {
		const { key } = await newAccount(botGateway());
		const id = nativeId(platform);
		await sandboxScenario(id, {
			admit_after_ms: 800,
			participants: [
				{ name: "Alice Chen", lines: ["Good morning everyone, the budget is approved and signed."] },
				{ name: "Bruno Diaz", lines: ["Great news, I will update the roadmap for the whole team today."] },
			],
			speech_start_ms: 2000,
			speech_gap_ms: 3000,
		});
		const sent = await apiAt(botGateway(), "POST", "/bots", {
			key,
			json: { platform, native_meeting_id: id, bot_name: "E2E Recorder", recording_enabled: true },
		});
		expect(sent.status).toBe(201);
		const meetingId = sent.body.id as number;
		const meeting = async () => (await apiAt(botGateway(), "GET", `/meetings/${meetingId}`, { key })).body as Record<string, unknown>;
		await eventually("the bot active", async () => ((await meeting()).status === "active" ? true : undefined), 60_000);

		// Both lines spoken (their captions shown), then a few seconds more, then the bot is stopped.
		const spoken = async () => {
			const observed = (await sandboxObserved(id)) as { captions_shown?: { speaker: string; text: string }[] };
			return observed.captions_shown?.some((c) => c.speaker === "Bruno Diaz" && /today/.test(c.text)) ? true : undefined;
		};
		await eventually("both lines spoken", spoken, 60_000);
		await new Promise((r) => setTimeout(r, 3000));
		expect((await apiAt(botGateway(), "DELETE", `/bots/${platform}/${id}`, { key })).status).toBeLessThan(300);
		const ended = await eventually(
			"the meeting ended",
			async () => {
				const m = await meeting();
				return m.status === "completed" || m.status === "failed" ? m : undefined;
			},
			60_000,
		);
		expect(ended.status).toBe("completed");

		const recording = await eventually(
			"the recording completed",
			async () => {
				const list = (await apiAt<{ recordings: Recording[] }>(botGateway(), "GET", `/recordings?meeting_id=${meetingId}`, { key })).body;
				return list.recordings[0]?.status === "completed" ? list.recordings[0] : undefined;
			},
			60_000,
		);
		expect(recording.error_message).toBeNull();
		const video = recording.media_files.find((f) => f.type === "video");
		const audio = recording.media_files.find((f) => f.type === "audio");
		expect(video).toMatchObject({ format: "webm", metadata: { width: 1280, height: 720 } });
		expect(audio).toMatchObject({ format: "webm" });
		if (!video || !audio) throw new Error("the recording lacks a file");

		// The meeting's length as the meeting had the bot: from when it was let in to when it left
		// (the record's end_time comes later, once the bot delivered its last parts).
		interface Attendee {
			name: string;
			in_call_at: number | null;
			left_at: number | null;
			active_speakers: { speaker: string | null; at: number }[];
		}
		const observed = (await sandboxObserved(id)) as { attendees: Attendee[] };
		const bot = observed.attendees.find((a) => a.name === "E2E Recorder");
		if (!bot?.in_call_at || !bot.left_at) throw new Error("the sandbox did not see the bot in the call and leave");
		const meetingSeconds = (bot.left_at - bot.in_call_at) / 1000;
		const whole = await bytesOf(key, recording.id, video.id);
		expect(whole.status).toBe(200);
		expect(whole.headers.get("content-type")).toBe("video/webm");
		expect(whole.body.length).toBe(video.file_size_bytes);
		const videoFile = path.join(dir, `${platform}-video.webm`);
		writeFileSync(videoFile, whole.body);
		const probed = await probe(videoFile);
		const picture = probed.streams.find((s) => s.codec_type === "video");
		expect(picture).toMatchObject({ codec_name: "vp8", width: 1280, height: 720 });
		expect(probed.streams.some((s) => s.codec_type === "audio" && s.codec_name === "opus")).toBe(true);
		// The video covers the meeting: its time 0 is within 2 s of the bot being let in (under the full
		// suite's load the encoder's start after admission has reached 2 s) and it ends within 2 s of
		// the bot leaving, on that clock however late ffmpeg started (bot-host/test/recording-clock.test.ts).
		// The header's length (the encoder finished the file) agrees with the frames really there.
		const videoStart = Date.parse(String(video.metadata.started_at));
		expect(Number.isFinite(videoStart)).toBe(true);
		const played = await playedSeconds(videoFile, "v");
		expect(videoStart - bot.in_call_at).toBeGreaterThan(-1000);
		expect(videoStart - bot.in_call_at).toBeLessThan(2000);
		expect(Math.abs(bot.left_at - (videoStart + played * 1000))).toBeLessThan(2000);
		expect(played).toBeGreaterThan(meetingSeconds - 4);
		expect(Math.abs((probed.duration ?? 0) - played)).toBeLessThan(0.5);
		expect(Math.abs(video.duration_seconds - (probed.duration ?? 0))).toBeLessThan(0.5);

		// The picture follows the speaker: the sandbox logged when its speaker view moved to each
		// person, and the video's time 0 is its `started_at`. Frames while Alice has the view and
		// frames once Bruno has it differ in pixels that hold still within each stretch: the view
		// itself (Meet's main stage, Zoom's active frame, Teams' lit outline), not the pictures' motion.
		const [toAlice, toBruno] = bot.active_speakers.slice(-2);
		if (!toAlice || !toBruno) throw new Error("the sandbox's speaker view did not move twice");
		const at = (epochMs: number) => (epochMs - videoStart) / 1000;
		const framesFrom = (from: number) => Promise.all([0, 0.35, 0.7].map((after) => frameAt(videoFile, from + after)));
		const aliceFrom = Math.max(at(toAlice.at), 0.5);
		const whileAlice = await framesFrom(aliceFrom + 1);
		// The control: a later stretch while Alice still has the view.
		const whileAliceLater = await framesFrom(aliceFrom + 2.5);
		const whileBruno = await framesFrom(at(toBruno.at) + 1);
		const speakerChange = steadyChange(whileAlice, whileBruno);
		const sameSpeaker = steadyChange(whileAlice, whileAliceLater);
		// Measured: about 100,000 pixels on Meet and Zoom, 9,000 on Teams (an outline), against about 560 for the same speaker.
		expect(speakerChange).toBeGreaterThan(2000);
		expect(speakerChange).toBeGreaterThan(5 * sameSpeaker);

		// Any range is the same bytes as the whole file's, across the file's parts.
		const ranges: [number, number][] = [
			[0, 99],
			[Math.floor(whole.body.length / 2) - 50_000, Math.floor(whole.body.length / 2) + 50_000],
			[whole.body.length - 10, whole.body.length - 1],
		];
		for (const [from, to] of ranges) {
			const part = await bytesOf(key, recording.id, video.id, `bytes=${from}-${to}`);
			expect(part.status).toBe(206);
			expect(part.headers.get("content-range")).toBe(`bytes ${from}-${to}/${whole.body.length}`);
			expect(part.body.equals(whole.body.subarray(from, to + 1))).toBe(true);
		}

		const sound = await bytesOf(key, recording.id, audio.id);
		expect(sound.headers.get("content-type")).toBe("audio/webm");
		const audioFile = path.join(dir, `${platform}-audio.webm`);
		writeFileSync(audioFile, sound.body);
		const heard = await probe(audioFile);
		expect(heard.streams).toEqual([expect.objectContaining({ codec_type: "audio", codec_name: "opus" })]);
		expect(Math.abs((heard.duration ?? 0) - played)).toBeLessThan(1);
		// Compressed: at most 1 MB a minute (16 kHz mono PCM would be 1.9 MB).
		expect(sound.body.length / ((heard.duration ?? 1) / 60)).toBeLessThan(1_000_000);
	});
});
