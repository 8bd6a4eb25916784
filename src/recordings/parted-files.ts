/**
 * Media files streamed in parts (docs/bot-channel.md#recording-parts): storing a part's bytes,
 * completing a recording (by its bot, or by the Worker for a bot that never did), and the
 * objects a recording's delete must remove. The rows are src/recordings/part-store.ts's.
 */
import type { RecordingPartType } from "../bot-channel/protocol";
import { type RecordingConfig, recordingPlan } from "../bots/recording-config";
import { concatBytes } from "../bytes";
import type { MediaFileRow, RecordingRow } from "../db/schema";
import type { Env } from "../env";
import { invalidField } from "../errors";
import { keyPages } from "../meetings/meeting-objects";
import { putExactLength } from "./exact-put";
import {
	abandonedRecordings,
	allPartsOf,
	completeStreamedRecording,
	dropEmptyFiles,
	type FileCompletion,
	failRecording,
	streamedFilesOf,
} from "./part-store";
import { deleteStoredMedia, mediaFilesOf } from "./recording-store";
import { uploadGraceS } from "./upload-rules";

/** Every WebM file (an EBML document) opens with the EBML header's ID. */
const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3];
export const startsLikeWebm = (head: Uint8Array) => EBML_MAGIC.every((byte, i) => head[i] === byte);

/** What a streamed file's metadata says before its bot completes it: the plan it was recorded to. */
export function planMetadata(type: RecordingPartType, recordingConfigJson: string | null): Record<string, string | number> {
	let config: RecordingConfig | null = null;
	try {
		config = recordingConfigJson ? (JSON.parse(recordingConfigJson) as RecordingConfig) : null;
	} catch {
		config = null;
	}
	if (type === "audio") return { codec: "opus" };
	const plan = recordingPlan(config);
	return { width: plan.width, height: plan.height, frame_rate: plan.frame_rate, codec: "vp8", audio_codec: "opus" };
}

/**
 * Streams a part's body to its fixed key. The first bytes are read before anything is stored, so
 * a `check` that refuses them (422) leaves the part's earlier bytes in place; so does a body
 * shorter or longer than its length, since R2 keeps the old object when a put fails.
 */
export async function storePartBody(
	bucket: R2Bucket,
	key: string,
	body: ReadableStream<Uint8Array>,
	length: number,
	type: RecordingPartType,
	check: ((head: Uint8Array) => boolean) | null,
): Promise<void> {
	const reader = body.getReader();
	const read: Uint8Array[] = [];
	let seen = 0;
	while (check && seen < EBML_MAGIC.length) {
		const next = await reader.read();
		if (next.done) break;
		read.push(next.value);
		seen += next.value.length;
	}
	if (check && !check(concatBytes(read))) {
		await reader.cancel().catch(() => {});
		throw invalidField(["body"], "Part 1 of a file is the start of a WebM file");
	}
	const rest = new ReadableStream<Uint8Array>({
		start(controller) {
			for (const chunk of read) controller.enqueue(chunk);
		},
		async pull(controller) {
			const next = await reader.read();
			if (next.done) controller.close();
			else controller.enqueue(next.value);
		},
		cancel(reason) {
			return reader.cancel(reason);
		},
	});
	await putExactLength(bucket, key, rest, length, `${type}/webm`);
}

/** A completed file as the completion answers it. */
export interface CompletedFile {
	id: number;
	type: string;
	parts: number;
	file_size_bytes: number;
	duration_seconds: number;
}

/**
 * Completes a streamed recording. The files named in `completions` take exactly their parts;
 * any other streamed file of it is completed from its parts 1..k with no gap (as a bot that died
 * left it), or removed when it has no part 1. The objects of the parts dropped go too.
 */
export async function completeStreamed(
	env: Env,
	recording: RecordingRow,
	completions: FileCompletion[],
	completedAt: string,
	errorMessage: string | null,
): Promise<CompletedFile[]> {
	const streamed = await streamedFilesOf(env, recording.id);
	const named = new Set(completions.map((c) => c.fileId));
	const others = streamed.filter((f) => !named.has(f.id));
	const empty = others.filter((f) => (f.parts ?? 0) === 0);
	const all = [...completions, ...others.filter((f) => (f.parts ?? 0) > 0).map(asItIs)];
	const emptyKeys = (
		await allPartsOf(
			env,
			empty.map((f) => f.id),
		)
	).map((p) => p.storageKey);
	await dropEmptyFiles(
		env,
		empty.map((f) => f.id),
	);
	const otherFiles = (await mediaFilesOf(env, [recording.id])).filter((f) => f.parts === null);
	let dropped: string[] = [];
	if (all.length === 0 && otherFiles.length === 0) {
		await failRecording(env, recording.id, completedAt, "The bot stored no playable part of this recording");
	} else {
		dropped = await completeStreamedRecording(env, recording.id, all, completedAt, errorMessage);
	}
	await deleteObjects(env, recording.id, [...emptyKeys, ...dropped]);
	const files = await streamedFilesOf(env, recording.id);
	return files.map((f) => ({
		id: f.id,
		type: f.type,
		parts: f.parts ?? 0,
		file_size_bytes: f.fileSizeBytes,
		duration_seconds: f.durationSeconds,
	}));
}

/** A file completed as its parts left it: its gapless run, the last part's media seconds, the plan's metadata. */
const asItIs = (f: MediaFileRow): FileCompletion => ({
	fileId: f.id,
	parts: f.parts ?? 0,
	durationSeconds: f.durationSeconds,
	metadata: f.metadata,
});

async function deleteObjects(env: Env, recordingId: number, keys: string[]): Promise<void> {
	const left = await deleteStoredMedia(env.RECORDINGS, keys);
	if (left.length > 0)
		console.warn("recording parts dropped, objects left behind", JSON.stringify({ recording_id: recordingId, keys: left.length }));
}

export const ABANDONED_RECORDING_MESSAGE =
	"The bot did not complete this recording (its host stopped): it holds the parts it stored, so its end may be missing";

/**
 * Completes the recordings whose bot never did (its host died): once their meeting has ended and
 * RECORDING_UPLOAD_GRACE_S passed, no bot will send a part again. Run by the minute cron; a batch
 * a run, so a backlog drains over a few minutes. Returns how many it completed.
 */
export async function completeAbandonedRecordings(env: Env, now: Date, batch = 20): Promise<number> {
	const endedBefore = new Date(now.getTime() - uploadGraceS(env) * 1000).toISOString();
	const abandoned = await abandonedRecordings(env, endedBefore, batch);
	for (const recording of abandoned) {
		await completeStreamed(env, recording, [], now.toISOString(), ABANDONED_RECORDING_MESSAGE);
	}
	return abandoned.length;
}

/** Every R2 key a recording's files hold: a whole file's object, and each part of a streamed one. */
export async function storedKeysOf(env: Env, files: MediaFileRow[]): Promise<{ keys: string[]; listed: Set<string> }> {
	const whole = files.filter((f) => f.parts === null).map((f) => f.storageKey);
	const streamed = files.filter((f) => f.parts !== null);
	const parts = await allPartsOf(
		env,
		streamed.map((f) => f.id),
	);
	// A part whose row was never written (its put landed, the row's write failed) is found by its file's prefix.
	const listed: string[] = [];
	for (const file of streamed) for await (const keys of keyPages(env.RECORDINGS, file.storageKey)) listed.push(...keys);
	return { keys: [...new Set([...whole, ...parts.map((p) => p.storageKey), ...listed])], listed: new Set(listed) };
}
