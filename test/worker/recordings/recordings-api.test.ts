import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { meetCode } from "../../shared/meetings";
import { until } from "../../shared/wait";
import { spawnRequestFor } from "../meetings/bot-sim";
import { createPlan, sendBot } from "../meetings/helpers";
import { call, json, mintKey, userWithKey } from "../support";
import { sineWav } from "./wav-fixture";

interface MediaFile {
	id: number;
	type: string;
	format: string;
	storage_backend: string;
	file_size_bytes: number;
	duration_seconds: number;
}
interface Recording {
	id: number;
	meeting_id: number;
	user_id: number;
	status: string;
	media_files: MediaFile[];
}

/** A recording as the bot leaves it: the WAV uploaded through the internal route to R2. */
async function uploadedRecording(headers: Record<string, string>, seconds = 1) {
	const meeting = await sendBot(headers, meetCode(), { recording_enabled: true });
	const spawn = await spawnRequestFor(meeting.id);
	const wav = sineWav(seconds);
	const res = await SELF.fetch((spawn.recording_upload_url ?? "").replace(/^https?:\/\/[^/]+/, "https://gateway.test"), {
		method: "PUT",
		headers: { authorization: `Bearer ${spawn.channel.token}`, "content-type": "audio/wav", "content-length": String(wav.length) },
		body: wav,
	});
	if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
	const ids = await json<{ recording_id: number; media_file_id: number }>(res);
	return { meeting, wav, ...ids };
}

/** A recording written straight to R2 and D1 (faster, for tests about paging and ownership). */
async function storedRecording(userId: number, meetingId: number, bytes: Uint8Array) {
	const key = `recordings/${userId}/${meetingId}/${crypto.randomUUID()}.wav`;
	await env.RECORDINGS.put(key, bytes);
	const now = new Date().toISOString();
	const recording = await env.DB.prepare(
		"INSERT INTO recordings (meeting_id, user_id, session_uid, source, status, created_at, completed_at) VALUES (?, ?, ?, 'bot', 'completed', ?, ?) RETURNING id",
	)
		.bind(meetingId, userId, String(meetingId), now, now)
		.first<number>("id");
	const file = await env.DB.prepare(
		"INSERT INTO media_files (recording_id, type, format, storage_backend, storage_key, file_size_bytes, duration_seconds, metadata, created_at) VALUES (?, 'audio', 'wav', 'r2', ?, ?, 1, '{}', ?) RETURNING id",
	)
		.bind(recording, key, bytes.length, now)
		.first<number>("id");
	return { recording_id: recording ?? 0, media_file_id: file ?? 0, key };
}

async function callWith(overrides: Partial<Env>, path: string, headers: Record<string, string> = {}) {
	const ctx = createExecutionContext();
	const res = await worker.fetch(new Request(`https://gateway.test${path}`, { headers }), { ...env, ...overrides } as Env, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());
/** The gateway's own links point at https://gateway.test; reach them through SELF without any key. */
const open = (url: string, headers: Record<string, string> = {}) => SELF.fetch(url, { headers });

describe("recordings API", () => {
	it("lists only the caller's recordings, newest first, with limit and offset, and hides others' (404)", async () => {
		const alice = await userWithKey();
		const bob = await userWithKey();
		const plan = await createPlan(alice.headers, { title: "rec" });
		const made = [];
		for (let i = 0; i < 3; i++) made.push(await storedRecording(alice.user.id, plan.id, new Uint8Array([i, i, i])));
		const bobPlan = await createPlan(bob.headers, {});
		const bobs = await storedRecording(bob.user.id, bobPlan.id, new Uint8Array([9]));

		const all = await json<{ recordings: Recording[] }>(await call("GET", "/recordings", { headers: alice.headers }));
		expect(all.recordings.map((r) => r.id)).toEqual(made.map((m) => m.recording_id).reverse());
		expect(all.recordings[0]).toMatchObject({ meeting_id: plan.id, user_id: alice.user.id, status: "completed" });
		expect(all.recordings[0]?.media_files).toEqual([expect.objectContaining({ id: made[2]?.media_file_id, file_size_bytes: 3 })]);
		const page = await json<{ recordings: Recording[] }>(await call("GET", "/recordings?limit=1&offset=1", { headers: alice.headers }));
		expect(page.recordings.map((r) => r.id)).toEqual([made[1]?.recording_id]);
		expect((await call("GET", "/recordings?limit=0", { headers: alice.headers })).status).toBe(422);

		for (const path of [
			`/recordings/${bobs.recording_id}`,
			`/recordings/${bobs.recording_id}/master?type=audio`,
			`/recordings/${bobs.recording_id}/media/${bobs.media_file_id}/raw`,
			`/recordings/${bobs.recording_id}/media/${bobs.media_file_id}/download`,
		]) {
			expect((await call("GET", path, { headers: alice.headers })).status, path).toBe(404);
		}
		expect((await call("DELETE", `/recordings/${bobs.recording_id}`, { headers: alice.headers })).status).toBe(404);
		// A media file of another recording is not reachable through this one.
		expect(
			(await call("GET", `/recordings/${made[0]?.recording_id}/media/${made[1]?.media_file_id}/raw`, { headers: alice.headers })).status,
		).toBe(404);
		expect((await call("GET", "/recordings", { headers: (await userWithKey("browser")).headers })).status).toBe(403);
	});

	it("serves an uploaded WAV byte for byte, inline, with the master metadata pointing at it", async () => {
		const { headers } = await userWithKey();
		const { wav, recording_id, media_file_id, meeting } = await uploadedRecording(headers, 1.5);
		const one = await json<Recording>(await call("GET", `/recordings/${recording_id}`, { headers }));
		expect(one).toMatchObject({
			id: recording_id,
			meeting_id: meeting.id,
			media_files: [
				{ id: media_file_id, type: "audio", format: "wav", storage_backend: "r2", file_size_bytes: wav.length, duration_seconds: 1.5 },
			],
		});

		const master = await json<Record<string, unknown>>(await call("GET", `/recordings/${recording_id}/master?type=audio`, { headers }));
		expect(master).toMatchObject({
			recording_id,
			meeting_id: meeting.id,
			media_file_id,
			type: "audio",
			format: "wav",
			content_type: "audio/wav",
			file_size_bytes: wav.length,
			finalized: true,
			raw_url: `https://gateway.test/recordings/${recording_id}/media/${media_file_id}/raw`,
		});
		expect((await call("GET", `/recordings/${recording_id}/master?type=video`, { headers })).status).toBe(404);

		const raw = await call("GET", new URL(String(master.raw_url)).pathname, { headers });
		expect(raw.status).toBe(200);
		expect(raw.headers.get("content-type")).toBe("audio/wav");
		expect(raw.headers.get("content-disposition")).toBe(`inline; filename="recording-${recording_id}-${media_file_id}.wav"`);
		expect(raw.headers.get("accept-ranges")).toBe("bytes");
		expect(raw.headers.get("content-length")).toBe(String(wav.length));
		expect(await bytesOf(raw)).toEqual(wav);
		const head = await SELF.fetch(String(master.raw_url), { method: "HEAD", headers });
		expect(head.status).toBe(200);
		expect(head.headers.get("content-length")).toBe(String(wav.length));
		expect((await head.arrayBuffer()).byteLength).toBe(0);
		// The key is needed per request.
		expect((await SELF.fetch(String(master.raw_url))).status).toBe(401);
	});

	it("answers single ranges with 206 and the exact bytes, 416 past the end, and the whole file for ranges it ignores", async () => {
		const { user, headers } = await userWithKey();
		const plan = await createPlan(headers, {});
		const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
		const { recording_id, media_file_id } = await storedRecording(user.id, plan.id, bytes);
		const path = `/recordings/${recording_id}/media/${media_file_id}/raw`;
		const ranged = (range: string) => call("GET", path, { headers: { ...headers, Range: range } });

		const cases: [string, number, number][] = [
			["bytes=0-43", 0, 43],
			["bytes=990-", 990, 999],
			["bytes=-10", 990, 999],
			["bytes=500-5000", 500, 999],
			["bytes=-5000", 0, 999],
			["bytes=999-999", 999, 999],
		];
		for (const [range, start, end] of cases) {
			const res = await ranged(range);
			expect(res.status, range).toBe(206);
			expect(res.headers.get("content-range"), range).toBe(`bytes ${start}-${end}/1000`);
			expect(res.headers.get("content-length"), range).toBe(String(end - start + 1));
			expect(await bytesOf(res), range).toEqual(bytes.slice(start, end + 1));
		}
		for (const range of ["bytes=1000-", "bytes=4000-5000", "bytes=-0"]) {
			const res = await ranged(range);
			expect(res.status, range).toBe(416);
			expect(res.headers.get("content-range"), range).toBe("bytes */1000");
		}
		// Several ranges, a reversed range, another unit: ignored, the whole file (RFC 9110 allows it).
		for (const range of ["bytes=0-1,5-6", "bytes=9-2", "items=0-1"]) {
			const res = await ranged(range);
			expect(res.status, range).toBe(200);
			expect(await bytesOf(res), range).toEqual(bytes);
		}
	});

	it("gives a gateway-signed download link that works without a key until it expires, and 403 for a forged one", async () => {
		const { user, headers } = await userWithKey();
		const plan = await createPlan(headers, {});
		const bytes = sineWav(0.25);
		const { recording_id, media_file_id } = await storedRecording(user.id, plan.id, bytes);
		const res = await call("GET", `/recordings/${recording_id}/media/${media_file_id}/download`, { headers });
		expect(res.status).toBe(200);
		const link = await json<{
			download_url: string;
			filename: string;
			content_type: string;
			file_size_bytes: number;
			expires_in_seconds: number;
		}>(res);
		expect(link).toMatchObject({
			filename: `recording-${recording_id}-${media_file_id}.wav`,
			content_type: "audio/wav",
			file_size_bytes: bytes.length,
			expires_in_seconds: 900,
		});
		expect(link.download_url).toMatch(
			new RegExp(
				`^https://gateway\\.test/public/recordings/${media_file_id}/recording-${recording_id}-${media_file_id}\\.wav\\?expires=\\d+&signature=[\\w-]+$`,
			),
		);

		const got = await open(link.download_url);
		expect(got.status).toBe(200);
		expect(got.headers.get("content-disposition")).toBe(`attachment; filename="${link.filename}"`);
		expect(await bytesOf(got)).toEqual(bytes);
		const part = await open(link.download_url, { Range: "bytes=0-3" });
		expect(part.status).toBe(206);
		expect(new TextDecoder().decode(await bytesOf(part))).toBe("RIFF");

		const url = new URL(link.download_url);
		const forged = new URL(url);
		forged.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
		expect((await open(forged.toString())).status).toBe(403);
		const other = new URL(url);
		other.pathname = other.pathname.replace(`/${media_file_id}/`, `/${media_file_id + 1}/`);
		expect((await open(other.toString())).status).toBe(403);
		url.searchParams.delete("signature");
		expect((await open(url.toString())).status).toBe(403);
	});

	it("refuses a gateway-signed link once it has expired", async () => {
		const { user, headers } = await userWithKey();
		const plan = await createPlan(headers, {});
		const { recording_id, media_file_id } = await storedRecording(user.id, plan.id, new Uint8Array([1, 2, 3]));
		const res = await callWith({ RECORDING_DOWNLOAD_TTL_S: "1" }, `/recordings/${recording_id}/media/${media_file_id}/download`, headers);
		const { download_url, expires_in_seconds } = await json<{ download_url: string; expires_in_seconds: number }>(res);
		expect(expires_in_seconds).toBe(1);
		expect((await open(download_url)).status).toBe(200);
		const expires = Number(new URL(download_url).searchParams.get("expires"));
		await until("the link's expiry to pass", () => Date.now() / 1000 > expires);
		const late = await open(download_url);
		expect(late.status).toBe(403);
		expect(await late.json()).toEqual({ detail: "Download link expired" });
	});

	it("presigns an R2 S3 URL when the deployment has S3 credentials for the bucket", async () => {
		const { user, headers } = await userWithKey();
		const plan = await createPlan(headers, {});
		const { recording_id, media_file_id, key } = await storedRecording(user.id, plan.id, new Uint8Array([1]));
		const s3 = {
			R2_S3_ENDPOINT: "https://0123456789abcdef.r2.cloudflarestorage.com",
			R2_ACCESS_KEY_ID: "AKIDEXAMPLE",
			R2_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
			R2_BUCKET: "meetbot-recordings",
		};
		const res = await callWith(s3, `/recordings/${recording_id}/media/${media_file_id}/download`, headers);
		const { download_url } = await json<{ download_url: string }>(res);
		const url = new URL(download_url);
		expect(url.origin).toBe(s3.R2_S3_ENDPOINT);
		expect(url.pathname).toBe(`/${s3.R2_BUCKET}/${key}`);
		expect(url.searchParams.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
		expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^AKIDEXAMPLE\/\d{8}\/auto\/s3\/aws4_request$/);
		expect(url.searchParams.get("X-Amz-Expires")).toBe("900");
		expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
		expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
		expect(download_url).not.toContain(s3.R2_SECRET_ACCESS_KEY);
	});

	it("refuses a tx-only key the delete with 403: a read key never erases, and the recording stays", async () => {
		const { user, headers } = await userWithKey();
		const { recording_id, media_file_id } = await uploadedRecording(headers, 0.5);
		const key = await env.DB.prepare("SELECT storage_key FROM media_files WHERE id = ?").bind(media_file_id).first<string>("storage_key");
		const reader = { "X-API-Key": await mintKey(user.id, "tx") };
		const res = await call("DELETE", `/recordings/${recording_id}`, { headers: reader });
		expect(res.status).toBe(403);
		expect(await json(res)).toEqual({ detail: expect.any(String) });
		expect((await call("GET", `/recordings/${recording_id}`, { headers: reader })).status).toBe(200);
		expect(await env.RECORDINGS.head(key ?? "")).not.toBeNull();
	});

	it("deletes the recording, its stored objects and its rows; the meeting then lists none", async () => {
		const { headers } = await userWithKey();
		const { recording_id, media_file_id, meeting } = await uploadedRecording(headers, 0.5);
		const key = await env.DB.prepare("SELECT storage_key FROM media_files WHERE id = ?").bind(media_file_id).first<string>("storage_key");
		const link = await json<{ download_url: string }>(
			await call("GET", `/recordings/${recording_id}/media/${media_file_id}/download`, { headers }),
		);

		const res = await call("DELETE", `/recordings/${recording_id}`, { headers });
		expect(res.status).toBe(200);
		// The contract's {status, recording_id}, and the receipt of what went (docs/retention.md#deleting-a-recording).
		expect(await res.json()).toEqual({
			status: "deleted",
			recording_id,
			removed: { objects: 1, database: { recordings: 1, media_files: 1 } },
			objects_left: 0,
		});
		expect(await env.RECORDINGS.head(key ?? "")).toBeNull();
		expect(await env.DB.prepare("SELECT count(*) AS n FROM media_files WHERE recording_id = ?").bind(recording_id).first("n")).toBe(0);
		expect((await call("GET", `/recordings/${recording_id}`, { headers })).status).toBe(404);
		expect((await call("DELETE", `/recordings/${recording_id}`, { headers })).status).toBe(404);
		expect((await open(link.download_url)).status).toBe(404);
		const after = await json<{ recordings: unknown[] }>(await call("GET", `/meetings/${meeting.id}`, { headers }));
		expect(after.recordings).toEqual([]);
	});
});
