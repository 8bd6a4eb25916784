import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { isUniqueViolation } from "../db";
import { ApiError, conflict, notFound } from "../errors";
import { nowIso } from "../meetings/meeting-store";
import { putExactLength } from "../recordings/exact-put";
import { streamedRecordingAwaitingAudio } from "../recordings/part-store";
import { addMediaFile, completeRecording, dropRecording, reserveRecording, uploadTargetOf } from "../recordings/recording-store";
import { maxRecordingBytes, uploadGraceS, uploadingAttempt, uploadRefusal } from "../recordings/upload-rules";
import { parseWavHeader, wavDurationSeconds } from "../recordings/wav";

/** Where a bot uploads the meeting's mixed audio when it leaves (internal, meeting token). */
export const recordingUploadRoutes = new Hono<AppEnv>();

const HEADER_BYTES = 4096;

recordingUploadRoutes.put("/internal/recordings/:meeting_id", async (c) => {
	const { meetingId, attempt } = await uploadingAttempt(c.env, c.req.param("meeting_id"), c.req.header("authorization"));
	const length = Number(c.req.header("content-length"));
	if (!Number.isInteger(length) || length <= 0) throw new ApiError(411, "Content-Length is required");
	if (length > maxRecordingBytes(c.env)) throw new ApiError(413, "Recording too large");
	const meeting = await uploadTargetOf(c.env, meetingId);
	if (!meeting || !c.req.raw.body) throw notFound("Meeting not found");
	const refusal = uploadRefusal(meeting, uploadGraceS(c.env));
	if (refusal) throw refusal;

	// The attempt's one upload is claimed before any byte is stored; a failed one gives it back.
	// A bot recording video with WAV audio streams the video first: its WAV joins that recording.
	const now = nowIso();
	let recordingId: number;
	let joined = false;
	try {
		const reserved = await reserveRecording(c.env, {
			meetingId,
			userId: meeting.user_id,
			sessionUid: String(meetingId),
			source: "bot",
			status: "uploading",
			createdAt: now,
			botAttempt: attempt,
		});
		if (reserved === undefined) throw new ApiError(500, "Recording was not stored");
		recordingId = reserved;
	} catch (err) {
		if (!isUniqueViolation(err)) throw err;
		const streaming = await streamedRecordingAwaitingAudio(c.env, { meetingId, attempt });
		if (!streaming) throw conflict("This bot already uploaded its recording");
		recordingId = streaming.id;
		joined = true;
	}

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
	let format: ReturnType<typeof parseWavHeader>;
	try {
		await putExactLength(c.env.RECORDINGS, key, c.req.raw.body.pipeThrough(inspect), length, "audio/wav");
		format = parseWavHeader(head);
		if (!format || format.dataOffset + format.dataBytes > length) throw new ApiError(422, "Body is not a complete PCM WAV file");
	} catch (err) {
		await c.env.RECORDINGS.delete(key).catch(() => {});
		if (!joined) await dropRecording(c.env, recordingId);
		throw err;
	}

	const done = nowIso();
	const wav = {
		recordingId,
		type: "audio",
		format: "wav",
		storageBackend: "r2",
		storageKey: key,
		fileSizeBytes: length,
		durationSeconds: Math.round(wavDurationSeconds(format) * 1000) / 1000,
		metadata: { sample_rate: format.sampleRate, channels: format.channels, bits_per_sample: format.bitsPerSample },
		createdAt: done,
	};
	// A joined recording is completed with its streamed parts (by its bot, or by the Worker for a bot that died).
	const file = joined ? await addMediaFile(c.env, wav) : await completeRecording(c.env, recordingId, done, wav);
	return c.json({ recording_id: recordingId, media_file_id: file?.id }, 201);
});
