/**
 * A bot's recording has a size cap: the host's BOT_RECORDING_MAX_BYTES, or the Worker's upload
 * limit from the spawn when that is smaller. At the cap the bot stops recording, says why on
 * its channel (the fake room parses every message with the protocol's schema), stays in the
 * meeting transcribing, and uploads the capped file when it leaves. The caps here are seconds
 * of audio, so they are reached at once.
 */
import { statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { until } from "../../test/shared/wait.ts";
import { spawnBot, useProviders, useWorld } from "./harness.ts";
import { describeWav } from "./providers.ts";
import { applied, finalStatus, segmentsOf, statusesOf } from "./room.ts";

/** 16 kHz mono PCM16 is 32,000 bytes a second; a file is that plus its 44-byte header. */
const wavBytes = (seconds: number) => 44 + seconds * 32_000;
const HOST_CAP = wavBytes(2);
const UPLOAD_LIMIT = wavBytes(1);

describe("a bot's recording at its size cap", () => {
	const world = useWorld({ recordingMaxBytes: HOST_CAP });
	const providers = useProviders();

	it("stops at the host's cap, names why on the channel, transcribes on in the call, and uploads the capped file", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			// The speech comes 4 s into the call, after 2 s of audio filled the recording.
			{ direct_join: true, speech_start_ms: 4_000, participants: [{ name: "Grace Hopper", lines: ["The compiler is ready for review."] }] },
			{
				transcription: { url: `${providers.url}/v1`, token: null },
				recording_enabled: true,
				recording_upload_url: `${providers.url}/recordings/capped.wav`,
			},
		);
		await world.room.until(bot.meetingId, (r) => segmentsOf(r).some((s) => s.completed && s.speaker === "Grace Hopper"));
		const received = applied(world.room.received(bot.meetingId));
		const stopped = received.findIndex((m) => m.type === "recording");
		expect(received[stopped]).toMatchObject({ type: "recording", state: "stopped", reason: "size_limit", bytes: HOST_CAP });
		// Transcription went on after the stop, and the bot is still in the call.
		expect(received.findIndex((m) => m.type === "segment" && m.segment.completed)).toBeGreaterThan(stopped);
		expect(finalStatus(received)).toBeUndefined();
		expect(statusesOf(received).at(-1)?.status).toBe("active");
		// The file on disk stopped growing at the cap.
		expect(statSync(bot.session.recordingPath ?? "").size).toBe(HOST_CAP - 44);
		expect(world.logs).toContain(`bot ${bot.meetingId}: recording stopped at its size limit (${HOST_CAP} bytes); transcription goes on`);

		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		const upload = providers.uploads.find((u) => u.path === "/recordings/capped.wav");
		expect(upload?.body.length).toBe(HOST_CAP);
		expect(upload?.body.readUInt32LE(40)).toBe(HOST_CAP - 44);
		expect(describeWav(upload?.body ?? Buffer.alloc(44))).toMatchObject({ sampleRate: 16_000, channels: 1, seconds: 2 });
	});

	it("stops at the upload's limit when the spawn names a smaller one than the host's", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Alan Turing" }] },
			{ recording_enabled: true, recording_max_bytes: UPLOAD_LIMIT, recording_upload_url: `${providers.url}/recordings/limited.wav` },
		);
		const stoppedOrPast = () => {
			// The path is named before the first write creates the file: no file yet is nothing written.
			const file = bot.session.recordingPath;
			const size = file ? (statSync(file, { throwIfNoEntry: false })?.size ?? 0) : 0;
			return world.room.received(bot.meetingId).some((m) => m.type === "recording") || size > HOST_CAP - 44;
		};
		await until("the recording stopped or past the host's cap", stoppedOrPast);
		expect(applied(world.room.received(bot.meetingId)).find((m) => m.type === "recording")).toMatchObject({
			reason: "size_limit",
			bytes: UPLOAD_LIMIT,
		});
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(providers.uploads.find((u) => u.path === "/recordings/limited.wav")?.body.length).toBe(UPLOAD_LIMIT);
	});
});
