/** A bot streaming its recording in parts (docs/bot-channel.md#recording-parts), as the recording tests play it. */
import { env, SELF } from "cloudflare:test";
import { inject } from "vitest";
import type { SpawnRequest } from "../../../src/bot-channel/protocol";
// Its ProvidedContext declares what `inject` hands over.
import type {} from "../../receiver/global-setup";
import { meetCode } from "../../shared/meetings";
import { spawnRequestFor } from "../meetings/bot-sim";
import { call, json, userWithKey } from "../support";

/** The real WebM files ffmpeg made for this run (test/receiver/webm-fixture.ts). */
export function webmFixture(kind: "video" | "audio"): Uint8Array {
	return Uint8Array.from(atob(inject("webmFixtures")[kind]), (c) => c.charCodeAt(0));
}

/** A meeting whose bot was sent with these options and claimed by a host: its spawn. */
export async function recordingMeeting(bot: Record<string, unknown> = { recording_enabled: true }) {
	const { headers, user } = await userWithKey();
	const code = meetCode();
	const res = await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: code, ...bot } });
	if (res.status !== 201) throw new Error(`POST /bots: ${res.status} ${await res.text()}`);
	const meeting = await json<{ id: number }>(res);
	const spawn = await spawnRequestFor(meeting.id);
	return { headers, user, meeting, spawn, code };
}

const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, "https://gateway.test");

/** PUT part n of a file, its X-Media-Seconds as given. */
export function putPart(
	spawn: SpawnRequest,
	type: string,
	n: number | string,
	body: Uint8Array,
	options: { seconds?: string | number | null; token?: string; headers?: Record<string, string> } = {},
) {
	const headers: Record<string, string> = {
		authorization: `Bearer ${options.token ?? spawn.channel.token}`,
		"content-type": `${type}/webm`,
		"content-length": String(body.length),
		...options.headers,
	};
	if (options.seconds !== null) headers["x-media-seconds"] = String(options.seconds ?? 1);
	return SELF.fetch(`${local(spawn.recording_parts_url ?? "")}/${type}/${n}`, { method: "PUT", headers, body });
}

/** POST the completion. */
export function complete(spawn: SpawnRequest, body: unknown, token = spawn.channel.token) {
	return SELF.fetch(`${local(spawn.recording_parts_url ?? "")}/complete`, {
		method: "POST",
		headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
		body: JSON.stringify(body),
	});
}

/** Cuts bytes at these offsets: the parts a bot would have shipped. */
export function cut(bytes: Uint8Array, at: number[]): Uint8Array[] {
	const bounds = [0, ...at, bytes.length];
	return bounds.slice(1).map((end, i) => bytes.slice(bounds[i], end));
}

export function concat(parts: Uint8Array[]): Uint8Array {
	const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
	let at = 0;
	for (const p of parts) {
		out.set(p, at);
		at += p.length;
	}
	return out;
}

/** Every part of a file, in order, with its media seconds. */
export async function streamParts(spawn: SpawnRequest, type: "audio" | "video", parts: Uint8Array[], secondsEach = 1) {
	for (const [i, part] of parts.entries()) {
		const res = await putPart(spawn, type, i + 1, part, { seconds: (i + 1) * secondsEach });
		if (res.status !== 201) throw new Error(`part ${type}/${i + 1}: ${res.status} ${await res.text()}`);
	}
}

/** The meeting's objects in the bucket (other files' objects share it). */
export async function objectsOfMeeting(userId: number, meetingId: number): Promise<string[]> {
	const keys: string[] = [];
	let cursor: string | undefined;
	do {
		const page = await env.RECORDINGS.list({ prefix: `recordings/${userId}/${meetingId}/`, cursor });
		keys.push(...page.objects.map((o) => o.key));
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
	return keys.sort();
}

export interface MediaFileView {
	id: number;
	type: string;
	format: string;
	file_size_bytes: number;
	duration_seconds: number;
	metadata: Record<string, unknown>;
}
export interface RecordingView {
	id: number;
	status: string;
	error_message: string | null;
	media_files: MediaFileView[];
}

/** The meeting's recordings as GET /recordings?meeting_id shows them. */
export async function recordingsOf(headers: Record<string, string>, meetingId: number): Promise<RecordingView[]> {
	const res = await call("GET", `/recordings?meeting_id=${meetingId}`, { headers });
	return (await json<{ recordings: RecordingView[] }>(res)).recordings;
}
