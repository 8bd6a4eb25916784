import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { getMeeting } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { sineWav } from "./wav-fixture";

async function liveMeeting(bot: { recording_enabled?: boolean } = { recording_enabled: true }) {
	const { headers } = await userWithKey();
	const letters = () => Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");
	const l = letters();
	const code = `${l.slice(0, 3)}-${l.slice(3, 7)}-${l.slice(7, 10)}`;
	const meeting = await json<{ id: number }>(
		await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code, ...bot } }),
	);
	const spawn = await spawnRequestFor(meeting.id);
	return { headers, meeting, spawn, code };
}

const storedCount = async (meetingId: number) =>
	(await env.DB.prepare("SELECT count(*) AS n FROM recordings WHERE meeting_id = ?").bind(meetingId).first<number>("n")) ?? 0;
/** Keys are recordings/<user>/<meeting>/<uuid>.wav; other files' objects share the bucket (isolate: false). */
const ofMeeting = (key: string, meetingId: number) => key.split("/")[2] === String(meetingId);
const objectsOf = async (meetingId: number) =>
	(await env.RECORDINGS.list({ prefix: "recordings/" })).objects.filter((o) => ofMeeting(o.key, meetingId));

/** DELETE /bots for a meeting whose claimed bot never connected: the room ends it at once. */
async function endMeeting(headers: Record<string, string>, code: string, meetingId: number) {
	expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
	expect(await getMeeting(headers, meetingId)).toMatchObject({ status: "completed" });
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
		expect(await objectsOf(b.meeting.id)).toEqual([]);
	});
});

describe("what a recording-upload token can still do", () => {
	it("is refused, storing nothing, for a meeting whose bot was sent without recording", async () => {
		for (const bot of [{ recording_enabled: false }, {}]) {
			const { meeting, spawn } = await liveMeeting(bot);
			expect(spawn.recording_enabled).toBe(false);
			const res = await upload(spawn.recording_upload_url ?? "", spawn.channel.token, sineWav(0.2));
			expect(res.status).toBe(403);
			expect(await res.json()).toEqual({ detail: "Recording was not enabled for this meeting" });
			expect(await storedCount(meeting.id)).toBe(0);
			expect(await objectsOf(meeting.id)).toEqual([]);
		}
	});

	it("takes one upload per attempt: a second is refused with 409, while a failed one does not count", async () => {
		const { meeting, spawn } = await liveMeeting();
		const url = spawn.recording_upload_url ?? "";
		expect((await upload(url, spawn.channel.token, new TextEncoder().encode("x".repeat(200)))).status).toBe(422);
		expect(await storedCount(meeting.id)).toBe(0);
		expect((await upload(url, spawn.channel.token, sineWav(0.3))).status).toBe(201);
		const again = await upload(url, spawn.channel.token, sineWav(0.4));
		expect(again.status).toBe(409);
		expect(await again.json()).toEqual({ detail: "This bot already uploaded its recording" });
		expect(await storedCount(meeting.id)).toBe(1);
		expect(await objectsOf(meeting.id)).toHaveLength(1);
	});

	it("is taken while the meeting is live and just after it ended, and refused with 410 past the grace", async () => {
		const live = await liveMeeting();
		expect((await upload(live.spawn.recording_upload_url ?? "", live.spawn.channel.token, sineWav(0.2))).status).toBe(201);

		// A bot that leaves after a stop that did not wait for it uploads just after the end.
		const justEnded = await liveMeeting();
		await endMeeting(justEnded.headers, justEnded.code, justEnded.meeting.id);
		expect((await upload(justEnded.spawn.recording_upload_url ?? "", justEnded.spawn.channel.token, sineWav(0.2))).status).toBe(201);

		const late = await liveMeeting();
		await endMeeting(late.headers, late.code, late.meeting.id);
		// The meeting ended longer ago than RECORDING_UPLOAD_GRACE_S (300 s by default).
		await env.DB.prepare("UPDATE meetings SET end_time = ? WHERE id = ?")
			.bind(new Date(Date.now() - 301_000).toISOString(), late.meeting.id)
			.run();
		const res = await upload(late.spawn.recording_upload_url ?? "", late.spawn.channel.token, sineWav(0.2));
		expect(res.status).toBe(410);
		expect(await res.json()).toEqual({ detail: "The meeting ended more than 300 s ago: its recording upload is closed" });
		expect(await storedCount(late.meeting.id)).toBe(0);
		expect(await objectsOf(late.meeting.id)).toEqual([]);
		// Its channel is closed to the token as well: the room refuses an ended meeting's bot.
		const channel = await SELF.fetch(late.spawn.channel.url.replace(/^wss:/, "https:"), {
			headers: { Upgrade: "websocket", Authorization: `Bearer ${late.spawn.channel.token}` },
		});
		expect(channel.status).toBe(409);
	});

	it("tells the bot the largest file it takes, and refuses a larger one with 413", async () => {
		const { meeting, spawn } = await liveMeeting();
		// MAX_RECORDING_BYTES's default, 1 GiB.
		expect(spawn.recording_max_bytes).toBe(1_073_741_824);
		const res = await SELF.fetch((spawn.recording_upload_url ?? "").replace(/^https?:\/\/[^/]+/, "https://gateway.test"), {
			method: "PUT",
			headers: { authorization: `Bearer ${spawn.channel.token}`, "content-length": String(1_073_741_825) },
			body: "x",
		});
		expect(res.status).toBe(413);
		expect(await res.json()).toEqual({ detail: "Recording too large" });
		expect(await storedCount(meeting.id)).toBe(0);
	});
});

describe("a recording the bot stopped at its size limit", () => {
	it("is named in the meeting's record, while the meeting and the upload go on; an unknown reason changes nothing", async () => {
		const { headers, meeting, spawn } = await liveMeeting();
		const bot = await SimulatedBot.connect(spawn);
		await bot.status("active");
		const before = await getMeeting(headers, meeting.id);
		// A reason the protocol does not name is skipped as unreadable (and acked), recording nothing.
		bot.channel.send({ type: "recording", state: "stopped", reason: "disk_full", bytes: 10, timestamp: new Date().toISOString(), seq: 2 });
		await bot.channel.waitFor("ack 2", (m) => m.type === "ack" && m.seq === 2);
		expect(bot.channel.messages).toContainEqual({ type: "error", detail: "unreadable bot channel message" });
		expect((await getMeeting(headers, meeting.id)).data).toEqual(before.data);

		const capped = sineWav(2);
		const at = new Date().toISOString();
		await bot.send({ type: "recording", state: "stopped", reason: "size_limit", bytes: capped.length, timestamp: at }, 3);
		const after = await getMeeting(headers, meeting.id);
		expect(after.status).toBe("active");
		expect(after.data.recording_stopped).toEqual({ reason: "size_limit", at, bytes: capped.length });
		expect((await upload(spawn.recording_upload_url ?? "", spawn.channel.token, capped)).status).toBe(201);
	});
});
