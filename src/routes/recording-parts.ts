import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import {
	RECORDING_PART_MAX_BYTES,
	RECORDING_PART_SECONDS_HEADER,
	RECORDING_PARTS_MAX,
	RecordingCompletion,
	RecordingPartType,
} from "../bot-channel/protocol";
import { ApiError, conflict, invalidField, notFound, zodFieldErrors } from "../errors";
import { nowIso } from "../meetings/meeting-store";
import { readCappedBytes } from "../outbound/capped-body";
import {
	attemptRecording,
	missingParts,
	openAttemptRecording,
	openStreamedFile,
	partKey,
	recordPart,
	streamedFile,
} from "../recordings/part-store";
import { completeStreamed, planMetadata, startsLikeWebm, storePartBody } from "../recordings/parted-files";
import { uploadTargetOf } from "../recordings/recording-store";
import { uploadGraceS, uploadingAttempt, uploadRefusal } from "../recordings/upload-rules";

/**
 * A recording streamed in parts while the meeting runs (docs/bot-channel.md#recording-parts):
 * the bot PUTs each part of its audio and video files as its encoder writes them, then completes
 * the recording. Same token and refusals as the WAV upload (src/routes/recording-upload.ts).
 */
export const recordingPartRoutes = new Hono<AppEnv>();

/** A completion names at most two files: far below this. */
const COMPLETION_MAX_BYTES = 64 * 1024;

/** The meeting the parts are for, with the upload rules applied (404, 403, 409, 410). */
async function partsTarget(c: { env: AppEnv["Bindings"] }, meetingId: number) {
	const meeting = await uploadTargetOf(c.env, meetingId);
	if (!meeting) throw notFound("Meeting not found");
	const refusal = uploadRefusal(meeting, uploadGraceS(c.env));
	if (refusal) throw refusal;
	return meeting;
}

const alreadyCompleted = () => conflict("This bot already completed its recording: it takes no more parts");

recordingPartRoutes.put("/internal/recordings/:meeting_id/parts/:type/:n", async (c) => {
	const { meetingId, attempt } = await uploadingAttempt(c.env, c.req.param("meeting_id"), c.req.header("authorization"));
	const type = RecordingPartType.safeParse(c.req.param("type"));
	if (!type.success) throw invalidField(["path", "type"], "A part's file is audio or video");
	const nText = c.req.param("n");
	const n = Number(nText);
	if (!/^[1-9][0-9]*$/.test(nText) || n > RECORDING_PARTS_MAX) {
		throw invalidField(["path", "n"], `A part number is 1 to ${RECORDING_PARTS_MAX}`);
	}
	const lengthHeader = c.req.header("content-length");
	const length = Number(lengthHeader);
	if (lengthHeader === undefined || !Number.isInteger(length) || length < 0) throw new ApiError(411, "Content-Length is required");
	if (length > RECORDING_PART_MAX_BYTES) throw new ApiError(413, `Part too large: at most ${RECORDING_PART_MAX_BYTES} bytes`);
	if (length === 0 || !c.req.raw.body) throw invalidField(["body"], "A part has at least one byte");
	const secondsText = c.req.header(RECORDING_PART_SECONDS_HEADER) ?? "";
	const seconds = Number(secondsText);
	if (secondsText.trim() === "" || !Number.isFinite(seconds) || seconds < 0) {
		throw invalidField(["header", RECORDING_PART_SECONDS_HEADER], "The media seconds the file covers through this part, a number >= 0");
	}
	const meeting = await partsTarget(c, meetingId);

	const now = nowIso();
	const recording = await openAttemptRecording(c.env, { meetingId, userId: meeting.user_id, attempt }, now);
	if (recording.status !== "in_progress") throw alreadyCompleted();
	const file = await openStreamedFile(c.env, recording, type.data, planMetadata(type.data, meeting.recording_config), now);
	if (file.status !== "in_progress") throw alreadyCompleted();

	const key = partKey(file, n);
	// Part 1 opens the file: a body that is not WebM never replaces it.
	const check = n === 1 ? startsLikeWebm : null;
	await storePartBody(c.env.RECORDINGS, key, c.req.raw.body, length, type.data, check);
	await recordPart(c.env, { mediaFileId: file.id, partNumber: n, storageKey: key, bytes: length, mediaSeconds: seconds, createdAt: now });
	return c.json({ recording_id: recording.id, media_file_id: file.id, part: n, bytes: length }, 201);
});

recordingPartRoutes.post("/internal/recordings/:meeting_id/parts/complete", async (c) => {
	const { meetingId, attempt } = await uploadingAttempt(c.env, c.req.param("meeting_id"), c.req.header("authorization"));
	await partsTarget(c, meetingId);
	const raw = c.req.raw.body ? await readCappedBytes(c.req.raw, COMPLETION_MAX_BYTES) : new Uint8Array(0);
	if (!raw) throw new ApiError(413, `Completion too large: at most ${COMPLETION_MAX_BYTES} bytes`);
	let body: unknown;
	try {
		body = JSON.parse(new TextDecoder().decode(raw));
	} catch {
		throw invalidField(["body"], "Body is not JSON", "json_invalid");
	}
	const parsed = RecordingCompletion.safeParse(body);
	if (!parsed.success) throw new ApiError(422, zodFieldErrors(parsed.error, "body"));
	const types = parsed.data.files.map((f) => f.type);
	if (new Set(types).size !== types.length) throw invalidField(["body", "files"], "Each file type at most once");

	const recording = await attemptRecording(c.env, { meetingId, attempt });
	if (!recording) throw conflict("No part of this recording was sent");
	const completions = [];
	for (const done of parsed.data.files) {
		const file = await streamedFile(c.env, recording.id, done.type);
		if (!file) throw conflict(`No part of the ${done.type} file was sent`);
		const missing = await missingParts(c.env, file.id, done.parts);
		if (missing.length > 0) {
			throw conflict(
				`The ${done.type} file lacks part ${missing.join(", ")}${missing.length >= 10 ? " and more" : ""}: send them and complete again`,
			);
		}
		completions.push({ fileId: file.id, parts: done.parts, durationSeconds: done.duration_seconds, metadata: done.metadata });
	}
	const files = await completeStreamed(c.env, recording, completions, nowIso(), null);
	return c.json({ recording_id: recording.id, status: "completed" as const, media_files: files }, 200);
});
