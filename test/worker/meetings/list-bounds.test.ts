import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";

/**
 * D1 binds at most 100 parameters per statement: list routes whose page or filter is larger
 * than that must still answer 200, not 500.
 */

/** `n` idle plans of one user, written straight to D1 (faster than n POSTs). */
async function manyPlans(userId: number, n: number): Promise<number[]> {
	const now = new Date().toISOString();
	const insert = env.DB.prepare(
		"INSERT INTO meetings (user_id, platform, status, data, created_at, updated_at) VALUES (?, 'unknown', 'idle', '{}', ?, ?) RETURNING id",
	);
	const results = await env.DB.batch(Array.from({ length: n }, () => insert.bind(userId, now, now)));
	return results.map((r) => (r.results[0] as { id: number }).id);
}

/** One completed recording with one media file per meeting, written straight to D1. */
async function recordingsFor(userId: number, meetingIds: number[]): Promise<void> {
	const now = new Date().toISOString();
	const recording = env.DB.prepare(
		"INSERT INTO recordings (meeting_id, user_id, session_uid, source, status, created_at, completed_at) VALUES (?, ?, ?, 'bot', 'completed', ?, ?)",
	);
	await env.DB.batch(meetingIds.map((id) => recording.bind(id, userId, String(id), now, now)));
	await env.DB.prepare(
		"INSERT INTO media_files (recording_id, type, format, storage_backend, storage_key, file_size_bytes, duration_seconds, metadata, created_at) SELECT id, 'audio', 'wav', 'r2', 'recordings/' || id || '.wav', 44, 1, '{}', ? FROM recordings WHERE user_id = ?",
	)
		.bind(now, userId)
		.run();
}

interface Listed {
	id: number;
	recordings: { meeting_id: number; media_files: unknown[] }[];
}

describe("GET /meetings past 100 rows", () => {
	it("answers 200 for limit=101 with 101 meetings, each with its recordings", async () => {
		const { user, headers } = await userWithKey();
		const ids = await manyPlans(user.id, 105);
		await recordingsFor(user.id, ids);
		const res = await call("GET", "/meetings?limit=101", { headers });
		expect(res.status).toBe(200);
		const { meetings } = await json<{ meetings: Listed[] }>(res);
		expect(meetings.map((m) => m.id)).toEqual([...ids].reverse().slice(0, 101));
		for (const m of meetings) {
			expect(m.recordings).toHaveLength(1);
			expect(m.recordings[0]).toMatchObject({ meeting_id: m.id, media_files: [expect.objectContaining({ format: "wav" })] });
		}
		const all = await call("GET", "/meetings?limit=500", { headers });
		expect(all.status).toBe(200);
		expect((await json<{ meetings: Listed[] }>(all)).meetings).toHaveLength(105);
	});

	it("answers 200 for a status filter repeated past 100 entries, as if given once", async () => {
		const { user, headers } = await userWithKey();
		const ids = await manyPlans(user.id, 2);
		const res = await call("GET", `/meetings?status=${Array(150).fill("idle").join(",")},scheduled`, { headers });
		expect(res.status).toBe(200);
		expect((await json<{ meetings: Listed[] }>(res)).meetings.map((m) => m.id)).toEqual([...ids].reverse());
	});

	it("answers 422 for an overlong status filter", async () => {
		const { headers } = await userWithKey();
		const res = await call("GET", `/meetings?status=${Array(200).fill("scheduled").join(",")}`, { headers });
		expect(res.status).toBe(422);
		expect(await res.json()).toMatchObject({ detail: [expect.objectContaining({ loc: ["query", "status"] })] });
	});
});

describe("GET /recordings past 100 rows", () => {
	it("answers 200 for limit=500 with 120 recordings, each with its media file, newest first", async () => {
		const { user, headers } = await userWithKey();
		const ids = await manyPlans(user.id, 120);
		await recordingsFor(user.id, ids);
		const res = await call("GET", "/recordings?limit=500", { headers });
		expect(res.status).toBe(200);
		const { recordings } = await json<{ recordings: { id: number; meeting_id: number; media_files: unknown[] }[] }>(res);
		expect(recordings).toHaveLength(120);
		expect(recordings.map((r) => r.meeting_id)).toEqual([...ids].reverse());
		for (const r of recordings) expect(r.media_files).toHaveLength(1);
	});
});

describe("bot slots past 100 held", () => {
	it("a claim at a cap above 100 checks every held slot against D1 and frees the ended ones", async () => {
		const { user } = await userWithKey();
		const ids = await manyPlans(user.id, 120);
		await env.DB.prepare(`UPDATE meetings SET status = 'completed' WHERE id IN (${ids.slice(0, 30).join(",")})`).run();
		await env.DB.prepare(`UPDATE meetings SET status = 'active' WHERE id IN (${ids.slice(30).join(",")})`).run();
		const account = env.ACCOUNT.get(env.ACCOUNT.idFromName(String(user.id)));
		for (const [i, id] of ids.entries()) {
			expect(await account.claimBotSlot(`google_meet:held-${i}`, 120)).toEqual({ ok: true });
			await account.bindBotSlot(`google_meet:held-${i}`, id);
		}
		expect(await account.claimBotSlot("google_meet:one-more", 120)).toEqual({ ok: true });
	});
});
