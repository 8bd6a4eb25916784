import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { spawnRequestFor } from "../meetings/bot-sim";
import { call, json, userWithKey } from "../support";
import { sineWav } from "./wav-fixture";

async function liveMeeting() {
	const { headers } = await userWithKey();
	const letters = () => Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");
	const l = letters();
	const code = `${l.slice(0, 3)}-${l.slice(3, 7)}-${l.slice(7, 10)}`;
	const meeting = await json<{ id: number }>(
		await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code, recording_enabled: true } }),
	);
	const spawn = await spawnRequestFor(meeting.id);
	return { headers, meeting, spawn, code };
}

function upload(url: string, token: string, body: Uint8Array) {
	return SELF.fetch(url.replace(/^https?:\/\/[^/]+/, "https://gateway.test"), {
		method: "PUT",
		headers: { authorization: `Bearer ${token}`, "content-type": "audio/wav", "content-length": String(body.length) },
		body,
	});
}

describe("recording upload from the bot", () => {
	it("stores a complete, playable WAV in R2 and records the recording and its media file", async () => {
		const { headers, meeting, spawn, code } = await liveMeeting();
		expect(spawn.recording_enabled).toBe(true);
		const wav = sineWav(1.5);
		const res = await upload(spawn.recording_upload_url ?? "", spawn.channel.token, wav);
		expect(res.status).toBe(201);

		const got = await json<{ recordings: { status: string; media_files: Record<string, unknown>[] }[] }>(
			await call("GET", `/meetings/${meeting.id}`, { headers }),
		);
		expect(got.recordings).toHaveLength(1);
		expect(got.recordings[0]).toMatchObject({ status: "completed", meeting_id: meeting.id, source: "bot" });
		expect(got.recordings[0]?.media_files[0]).toMatchObject({
			type: "audio",
			format: "wav",
			file_size_bytes: wav.length,
			duration_seconds: 1.5,
			metadata: { sample_rate: 16_000, channels: 1 },
		});
		const key = await env.DB.prepare("SELECT storage_key FROM media_files ORDER BY id DESC LIMIT 1").first<string>("storage_key");
		const object = await env.RECORDINGS.get(key ?? "");
		expect(new Uint8Array(await (object as R2ObjectBody).arrayBuffer())).toEqual(wav);
		const transcript = await json<{ recordings: unknown[] }>(await call("GET", `/transcripts/google_meet/${code}`, { headers }));
		expect(transcript.recordings).toHaveLength(1);
	});

	it("refuses a token of another meeting, and a body that is not WAV, storing nothing", async () => {
		const a = await liveMeeting();
		const b = await liveMeeting();
		const wav = sineWav(0.2);
		expect((await upload(b.spawn.recording_upload_url ?? "", a.spawn.channel.token, wav)).status).toBe(401);
		const notWav = new TextEncoder().encode("x".repeat(200));
		const res = await upload(b.spawn.recording_upload_url ?? "", b.spawn.channel.token, notWav);
		expect(res.status).toBe(422);
		const rows = await env.DB.prepare("SELECT count(*) AS n FROM recordings WHERE meeting_id = ?").bind(b.meeting.id).first<number>("n");
		expect(rows).toBe(0);
		const listed = await env.RECORDINGS.list({ prefix: `recordings/` });
		expect(listed.objects.some((o) => o.key.includes(`/${b.meeting.id}/`))).toBe(false);
	});
});
