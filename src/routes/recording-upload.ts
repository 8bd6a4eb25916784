import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { verifyChannelToken } from "../bot-channel/channel-token";
import { mediaFiles, recordings } from "../db/schema";
import { intVar } from "../env";
import { ApiError, notFound } from "../errors";
import { db } from "../meetings/meeting-store";
import { parseWavHeader, wavDurationSeconds } from "../recordings/wav";

/** Where a bot uploads the meeting's mixed audio when it leaves (internal, meeting token). */
export const recordingUploadRoutes = new Hono<AppEnv>();

const HEADER_BYTES = 4096;

recordingUploadRoutes.put("/internal/recordings/:meeting_id", async (c) => {
	const meetingId = Number(c.req.param("meeting_id"));
	const token = c.req.header("authorization")?.replace(/^Bearer\s+/i, "");
	// Any attempt's token of this meeting: a replaced bot's audio is still the meeting's (docs/bot-channel.md).
	if (!Number.isInteger(meetingId) || (await verifyChannelToken(c.env.SECRETS_KEY, token, meetingId)) === null) {
		throw new ApiError(401, "Invalid recording upload token");
	}
	const length = Number(c.req.header("content-length"));
	if (!Number.isInteger(length) || length <= 0) throw new ApiError(411, "Content-Length is required");
	if (length > intVar(c.env.MAX_RECORDING_BYTES, 1_073_741_824)) throw new ApiError(413, "Recording too large");
	const meeting = await c.env.DB.prepare("SELECT id, user_id FROM meetings WHERE id = ?")
		.bind(meetingId)
		.first<{ id: number; user_id: number }>();
	if (!meeting || !c.req.raw.body) throw notFound("Meeting not found");

	// Stream to R2 while keeping the first bytes, so the header is checked without buffering the file.
	let head = new Uint8Array(0);
	const inspect = new TransformStream<Uint8Array, Uint8Array>({
		transform(chunk, controller) {
			if (head.length < HEADER_BYTES) {
				const joined = new Uint8Array(head.length + chunk.length);
				joined.set(head);
				joined.set(chunk, head.length);
				head = joined.subarray(0, HEADER_BYTES);
			}
			controller.enqueue(chunk);
		},
	});
	const key = `recordings/${meeting.user_id}/${meetingId}/${crypto.randomUUID()}.wav`;
	const fixed = new FixedLengthStream(length);
	const stored = c.env.RECORDINGS.put(key, fixed.readable, { httpMetadata: { contentType: "audio/wav" } });
	await c.req.raw.body.pipeThrough(inspect).pipeTo(fixed.writable);
	await stored;

	const format = parseWavHeader(head);
	if (!format || format.dataOffset + format.dataBytes > length) {
		await c.env.RECORDINGS.delete(key);
		throw new ApiError(422, "Body is not a complete PCM WAV file");
	}
	const now = new Date().toISOString();
	const recording = await db(c.env)
		.insert(recordings)
		.values({
			meetingId,
			userId: meeting.user_id,
			sessionUid: String(meetingId),
			source: "bot",
			status: "completed",
			createdAt: now,
			completedAt: now,
		})
		.returning()
		.get();
	if (!recording) throw new ApiError(500, "Recording was not stored");
	const file = await db(c.env)
		.insert(mediaFiles)
		.values({
			recordingId: recording.id,
			type: "audio",
			format: "wav",
			storageBackend: "r2",
			storageKey: key,
			fileSizeBytes: length,
			durationSeconds: Math.round(wavDurationSeconds(format) * 1000) / 1000,
			metadata: { sample_rate: format.sampleRate, channels: format.channels, bits_per_sample: format.bitsPerSample },
			createdAt: now,
		})
		.returning()
		.get();
	return c.json({ recording_id: recording.id, media_file_id: file?.id }, 201);
});
