/**
 * What the meeting hears and sees from the bot (speech through the virtual microphone, the
 * avatar on the virtual camera, shared content as a screen share), and the audio path: meeting audio
 * captured in the page, transcribed by an OpenAI-compatible endpoint, recorded as WAV.
 */
import { existsSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { eventually, until } from "../../test/shared/wait.ts";
import { espeakWav } from "../bot/tts.ts";
import { CHANNEL_TOKEN, spawnBot, useProviders, useWorld } from "./harness.ts";
import { describeWav } from "./providers.ts";
import { finalStatus, segmentsOf, statusesOf } from "./room.ts";

const RED_SVG = Buffer.from(
	'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#ff0000"/></svg>',
).toString("base64");

describe("bot media in the sandbox", () => {
	const world = useWorld();
	const providers = useProviders();

	it("speaks, shows an avatar and shares content the meeting can hear and see", async () => {
		const bot = await spawnBot(world, "google_meet", { direct_join: true, participants: [{ name: "Frank" }] });
		const events = (name: string) => world.room.received(bot.meetingId).filter((m) => m.type === "event" && m.name === name);
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		const seen = () => world.sandbox.observed(bot.nativeId);

		world.room.command(bot.meetingId, { action: "speak", text: "Hello everyone, I am taking notes today." });
		await world.room.until(bot.meetingId, () => events("speak.completed").length === 1);
		expect(events("speak.started")).toHaveLength(1);
		expect(events("speak.started")[0]).toMatchObject({ payload: { text: "Hello everyone, I am taking notes today.", provider: "espeak" } });
		await until("voice on the bot's microphone", () => (seen()?.mic.voiced_windows ?? 0) > 0);
		// The microphone was live only while speaking.
		await until("the bot's microphone off", () => seen()?.attendees[0]?.mic_on === false);
		expect(seen()?.attendees[0]?.mic_history).toEqual([false, true, false]);
		// The meeting recorded real speech from the bot's microphone, and only while it was on.
		const heard = await eventually("1.5 s of the bot's speech recorded", () => {
			const wav = describeWav(world.sandbox.micWav(bot.nativeId) ?? Buffer.alloc(44));
			return wav.seconds > 1.5 ? wav : undefined;
		});
		expect(heard.rms).toBeGreaterThan(0.02);

		world.room.command(bot.meetingId, {
			action: "speak",
			text: "This is a rather long announcement that will be interrupted well before it reaches its natural end.",
		});
		await world.room.until(bot.meetingId, () => events("speak.started").length === 2);
		world.room.command(bot.meetingId, { action: "speak_stop" });
		await world.room.until(bot.meetingId, () => events("speak.interrupted").length === 1);
		expect(events("speak.completed")).toHaveLength(1);
		await until("the bot's microphone off", () => seen()?.attendees[0]?.mic_on === false);

		// Audio the gateway synthesized carries its text and provider; the caller's own audio has text null.
		const audio = (await espeakWav("Short line.")).toString("base64");
		world.room.command(bot.meetingId, { action: "speak_audio", audioBase64: audio, text: "Short line.", provider: "openai" });
		await world.room.until(bot.meetingId, () => events("speak.completed").length === 2);
		world.room.command(bot.meetingId, { action: "speak_audio", audioBase64: audio });
		await world.room.until(bot.meetingId, () => events("speak.completed").length === 3);
		expect(
			events("speak.started")
				.slice(2)
				.map((e) => (e.type === "event" ? e.payload : null)),
		).toEqual([
			{ text: "Short line.", provider: "openai" },
			{ text: null, source: "base64" },
		]);

		world.room.command(bot.meetingId, { action: "avatar_set", image_base64: RED_SVG });
		await world.room.until(bot.meetingId, () => events("avatar.set").length === 1);
		const red = await eventually("the red avatar on camera", () => {
			const c = seen()?.camera.last_color;
			return c && c[0]! > 200 && c[1]! < 60 && c[2]! < 60 ? c : undefined;
		});
		expect(red[0]).toBeGreaterThan(200);

		// start_share false: the content is loaded but nothing is presented until the start.
		world.room.command(bot.meetingId, {
			action: "screen_show",
			content_type: "html",
			html: '<body style="margin:0;background:#0000ff"><h1 style="color:#fff">Q3 plan</h1></body>',
			start: false,
		});
		// Camera acts run in order: once this avatar is set, the content above has been loaded.
		world.room.command(bot.meetingId, { action: "avatar_set", image_base64: RED_SVG });
		await world.room.until(bot.meetingId, () => events("avatar.set").length === 2);
		// Two more camera frames reach the meeting (one a second): had the loaded content gone on camera, they would show it.
		const framesThen = seen()?.camera.frames ?? 0;
		await until("two more camera frames", () => (seen()?.camera.frames ?? 0) >= framesThen + 2);
		expect(events("screen.sharing_started")).toHaveLength(0);
		expect(seen()?.screen.shares).toBe(0);
		const stillRed = seen()?.camera.last_color;
		expect(stillRed && stillRed[0]! > 200 && stillRed[2]! < 60).toBe(true);
		world.room.command(bot.meetingId, { action: "screen_start" });
		await world.room.until(bot.meetingId, () => events("screen.sharing_started").length === 1);
		expect(events("screen.sharing_started")[0]).toMatchObject({ payload: { content_type: "html", presented_as: "screen_share" } });
		await until("the blue shared content in the meeting's screen share", () => {
			const c = seen()?.screen.last_color;
			return c != null && c[2]! > 180 && c[0]! < 80;
		});
		world.room.command(bot.meetingId, { action: "screen_stop" });
		await world.room.until(bot.meetingId, () => events("screen.sharing_stopped").length === 1);
		await until("the meeting sees the share end", () => seen()?.screen.presenting === false);
		// The camera kept the avatar while the content was shared.
		const camera = seen()?.camera.last_color;
		expect(camera && camera[0]! > 200 && camera[2]! < 60).toBe(true);

		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ completion_reason: "stopped" });
	});

	it("transcribes captured meeting audio through the endpoint and uploads the WAV recording", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{
				direct_join: true,
				speech_gap_ms: 2_500,
				participants: [
					{ name: "Grace Hopper", lines: ["The compiler is ready for review."] },
					{ name: "Alan Turing", lines: ["I will read it this afternoon."] },
				],
			},
			{
				transcription: { url: `${providers.url}/v1`, token: "transcription-token" },
				recording_enabled: true,
				recording_upload_url: `${providers.url}/recordings/abc.wav`,
				language: "en",
			},
		);
		await world.room.until(bot.meetingId, (r) => segmentsOf(r).some((s) => s.completed && s.speaker === "Grace Hopper"));
		// A language change mid-call applies from the next window on.
		world.room.command(bot.meetingId, { action: "reconfigure", language: "de" });
		const confirmed = await world.room.until(bot.meetingId, (r) => {
			const done = segmentsOf(r).filter((s) => s.completed);
			return done.some((s) => s.speaker === "Grace Hopper") && done.some((s) => s.speaker === "Alan Turing") ? done : undefined;
		});
		// The recording goes to a file as it is heard, not into the host's memory.
		const file = world.host.bots.get(bot.meetingId)?.recordingPath ?? "";
		expect(statSync(file).size).toBeGreaterThan(16_000 * 2);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(existsSync(file)).toBe(false);

		for (const s of confirmed) {
			// Named by the captions the bot read beside the engine.
			expect(s.speaker_source).toBe("caption");
			expect(s.text).toMatch(/^speech lasting \d+ tenths$/);
		}
		expect(confirmed.find((s) => s.speaker === "Grace Hopper")?.language).toBe("en");
		expect(confirmed.find((s) => s.speaker === "Alan Turing")?.language).toBe("de");
		const heard = providers.transcriptions.filter((t) => t.authorization === "Bearer transcription-token");
		expect(heard.length).toBeGreaterThanOrEqual(2);
		for (const h of heard)
			expect(h).toMatchObject({ sampleRate: 16_000, channels: 1, fields: expect.objectContaining({ model: "whisper-1" }) });
		expect(heard[0]?.fields.language).toBe("en");
		expect(heard.at(-1)?.fields.language).toBe("de");
		expect(Math.max(...heard.map((h) => h.rms))).toBeGreaterThan(0.01);

		const upload = providers.uploads.find((u) => u.path === "/recordings/abc.wav");
		expect(upload).toMatchObject({ authorization: `Bearer ${CHANNEL_TOKEN}`, contentType: "audio/wav" });
		const wav = describeWav(upload?.body ?? Buffer.alloc(44));
		expect(upload?.body.toString("ascii", 0, 4)).toBe("RIFF");
		expect(upload?.body.readUInt32LE(40)).toBe((upload?.body.length ?? 0) - 44);
		expect(wav).toMatchObject({ sampleRate: 16_000, channels: 1 });
		expect(wav.seconds).toBeGreaterThan(2);
		expect(wav.rms).toBeGreaterThan(0.005);
	});

	it("captures Teams' server mix, which arrives over WebRTC, for transcription and recording", async () => {
		const bot = await spawnBot(
			world,
			"teams",
			{
				direct_join: true,
				speech_gap_ms: 2_000,
				participants: [
					{ name: "Ada Lovelace", lines: ["The engine can weave algebraic patterns."] },
					{ name: "Charles Babbage", lines: ["Then let us build it."] },
				],
			},
			{
				transcription: { url: providers.url, token: null },
				recording_enabled: true,
				recording_upload_url: `${providers.url}/recordings/teams.wav`,
			},
		);
		const confirmed = await world.room.until(bot.meetingId, (r) => {
			const done = segmentsOf(r).filter((s) => s.completed);
			return done.length >= 2 ? done : undefined;
		});
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		// Named by the captions the bot read beside the engine.
		expect(confirmed.map((s) => [s.speaker, s.speaker_source])).toEqual([
			["Ada Lovelace", "caption"],
			["Charles Babbage", "caption"],
		]);
		const upload = providers.uploads.find((u) => u.path === "/recordings/teams.wav");
		expect(describeWav(upload?.body ?? Buffer.alloc(44)).rms).toBeGreaterThan(0.005);
	});
});
