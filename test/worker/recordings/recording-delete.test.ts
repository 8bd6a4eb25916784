import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { meetCode } from "../../shared/meetings";
import { bucketRefusingDeletes } from "../meetings/broken-env";
import { sendBot } from "../meetings/helpers";
import { call, userWithKey } from "../support";
import { sineWav } from "./wav-fixture";

/**
 * DELETE /recordings/{id} removes the recording's stored objects, then its rows
 * (docs/retention.md#deleting-a-recording). An object the bucket refuses keeps the recording and
 * its rows, so that DELETE again can finish; the answer says so (503) and the key is logged. The
 * refusal here is R2's own: an object key over its 1,024-byte limit, which the bucket rejects
 * (InvalidObjectName) on delete; and a bucket that is down for one call, which a retry outlasts.
 */

const REFUSED_KEY = `recordings/refused/${"k".repeat(1100)}.wav`;

/** A completed recording of the user's meeting with one media file per key, the objects put where R2 takes them. */
async function recordingWithKeys(userId: number, meetingId: number, keys: string[]) {
	const now = new Date().toISOString();
	const recordingId = await env.DB.prepare(
		"INSERT INTO recordings (meeting_id, user_id, session_uid, source, status, created_at, completed_at) VALUES (?, ?, ?, 'bot', 'completed', ?, ?) RETURNING id",
	)
		.bind(meetingId, userId, String(meetingId), now, now)
		.first<number>("id");
	for (const key of keys) {
		if (key !== REFUSED_KEY) await env.RECORDINGS.put(key, sineWav(0.2));
		await env.DB.prepare(
			"INSERT INTO media_files (recording_id, type, format, storage_backend, storage_key, file_size_bytes, duration_seconds, metadata, created_at) VALUES (?, 'audio', 'wav', 'r2', ?, 100, 0.2, '{}', ?)",
		)
			.bind(recordingId, key, now)
			.run();
	}
	return recordingId ?? 0;
}

/** Straight through the Worker in this isolate, so the test sees what it logs. */
async function deleteRecording(id: number, headers: Record<string, string>, bindings: Env = env as Env) {
	const ctx = createExecutionContext();
	const res = await worker.fetch(new Request(`https://gateway.test/recordings/${id}`, { method: "DELETE", headers }), bindings, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

const rowsOf = async (recordingId: number) => ({
	recordings: await env.DB.prepare("SELECT count(*) AS n FROM recordings WHERE id = ?").bind(recordingId).first<number>("n"),
	mediaFiles: await env.DB.prepare("SELECT count(*) AS n FROM media_files WHERE recording_id = ?").bind(recordingId).first<number>("n"),
});

afterEach(() => {
	vi.restoreAllMocks();
});

describe("DELETE /recordings/{id} when the bucket refuses", () => {
	it("really is refused by R2 for such a key", async () => {
		await expect(env.RECORDINGS.delete(REFUSED_KEY)).rejects.toThrow();
		await expect(env.RECORDINGS.delete(["recordings/fine.wav", REFUSED_KEY])).rejects.toThrow();
	});

	it("keeps the recording and its rows (503), deletes every object it can, and logs the key left behind", async () => {
		const { user, headers } = await userWithKey();
		const meeting = await sendBot(headers, meetCode());
		const fineKey = `recordings/${user.id}/${meeting.id}/${crypto.randomUUID()}.wav`;
		const recordingId = await recordingWithKeys(user.id, meeting.id, [fineKey, REFUSED_KEY]);
		expect(await rowsOf(recordingId)).toEqual({ recordings: 1, mediaFiles: 2 });
		const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});

		const res = await deleteRecording(recordingId, headers);
		expect(res.status).toBe(503);
		expect(await res.json()).toEqual({
			detail: expect.stringContaining("delete it again"),
			status: "incomplete",
			recording_id: recordingId,
			removed: { objects: 1, database: {} },
			objects_left: 1,
		});
		// The rows stay for the retry to find; the one refused key does not strand the others.
		expect(await rowsOf(recordingId)).toEqual({ recordings: 1, mediaFiles: 2 });
		expect(await env.RECORDINGS.head(fineKey)).toBeNull();
		expect((await call("GET", `/recordings/${recordingId}`, { headers })).status).toBe(200);

		const logged = warnings.mock.calls.map((args) => args.join(" "));
		expect(logged).toHaveLength(1);
		expect(logged[0]).toContain("stored media left behind");
		expect(logged[0]).toContain(`"recording_id":${recordingId}`);
		expect(logged[0]).toContain(REFUSED_KEY.slice(0, 200));
		expect(logged[0]).not.toContain(fineKey);
		expect(logged[0]).not.toContain(headers["X-API-Key"]);
	});

	it("finishes on the retry once the bucket takes deletes again", async () => {
		const { user, headers } = await userWithKey();
		const meeting = await sendBot(headers, meetCode());
		const key = `recordings/${user.id}/${meeting.id}/${crypto.randomUUID()}.wav`;
		const recordingId = await recordingWithKeys(user.id, meeting.id, [key]);
		vi.spyOn(console, "warn").mockImplementation(() => {});
		const down = bucketRefusingDeletes(env.RECORDINGS);
		expect((await deleteRecording(recordingId, headers, { ...(env as Env), RECORDINGS: down })).status).toBe(503);
		expect(await env.RECORDINGS.head(key)).not.toBeNull();
		expect(await rowsOf(recordingId)).toEqual({ recordings: 1, mediaFiles: 1 });

		const retry = await deleteRecording(recordingId, headers);
		expect(retry.status).toBe(200);
		expect(await retry.json()).toEqual({
			status: "deleted",
			recording_id: recordingId,
			removed: { objects: 1, database: { recordings: 1, media_files: 1 } },
			objects_left: 0,
		});
		expect(await env.RECORDINGS.head(key)).toBeNull();
		expect(await rowsOf(recordingId)).toEqual({ recordings: 0, mediaFiles: 0 });
	});

	it("logs nothing when every object is deleted", async () => {
		const { user, headers } = await userWithKey();
		const meeting = await sendBot(headers, meetCode());
		const key = `recordings/${user.id}/${meeting.id}/${crypto.randomUUID()}.wav`;
		const recordingId = await recordingWithKeys(user.id, meeting.id, [key]);
		const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
		expect((await deleteRecording(recordingId, headers)).status).toBe(200);
		expect(await env.RECORDINGS.head(key)).toBeNull();
		expect(await rowsOf(recordingId)).toEqual({ recordings: 0, mediaFiles: 0 });
		expect(warnings).not.toHaveBeenCalled();
	});
});
