/**
 * Meetings, relayed audio and stored files with known times and sizes, written into D1 as the
 * Worker's own writers leave them (status-writes.ts, relay-meter.ts, part-store.ts), so the
 * usage figures can be checked to the second. The writers themselves are exercised through the
 * public routes in usage-figures.test.ts.
 */
import { env } from "cloudflare:test";
import { meetCode } from "../../shared/meetings";

export interface KnownMeeting {
	status: string;
	joining_at?: string | null;
	start_time?: string | null;
	end_time?: string | null;
	title?: string;
}

/** A meeting record with these times; its id. */
export async function knownMeeting(userId: number, m: KnownMeeting): Promise<number> {
	const created = m.joining_at ?? m.start_time ?? new Date().toISOString();
	const row = await env.DB.prepare(
		`INSERT INTO meetings (user_id, platform, native_meeting_id, status, joining_at, start_time, end_time, data, created_at, updated_at)
		 VALUES (?, 'google_meet', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
	)
		.bind(
			userId,
			meetCode(),
			m.status,
			m.joining_at ?? null,
			m.start_time ?? null,
			m.end_time ?? null,
			JSON.stringify(m.title ? { title: m.title } : {}),
			created,
			created,
		)
		.first<{ id: number }>();
	if (!row) throw new Error("meeting not inserted");
	return row.id;
}

/** Relayed seconds on a day, for the account and (when given) one of its meetings, as the relay counts them. */
export async function relayed(userId: number, day: string, seconds: number, meetingId?: number): Promise<void> {
	await env.DB.prepare(
		`INSERT INTO transcription_usage (user_id, day, seconds) VALUES (?1, ?2, ?3)
		 ON CONFLICT (user_id, day) DO UPDATE SET seconds = transcription_usage.seconds + excluded.seconds`,
	)
		.bind(userId, day, seconds)
		.run();
	if (meetingId === undefined) return;
	await env.DB.prepare("INSERT INTO transcription_usage_meetings (meeting_id, day, seconds) VALUES (?, ?, ?)")
		.bind(meetingId, day, seconds)
		.run();
}

async function recordingOf(userId: number, meetingId: number, at: string): Promise<number> {
	const row = await env.DB.prepare(
		`INSERT INTO recordings (meeting_id, user_id, session_uid, source, status, created_at, completed_at)
		 VALUES (?, ?, ?, 'bot', 'completed', ?, ?) RETURNING id`,
	)
		.bind(meetingId, userId, crypto.randomUUID(), at, at)
		.first<{ id: number }>();
	if (!row) throw new Error("recording not inserted");
	return row.id;
}

/** A recording stored whole (the WAV upload): one object of `bytes`. */
export async function wholeFile(userId: number, meetingId: number, bytes: number, at: string): Promise<void> {
	const recordingId = await recordingOf(userId, meetingId, at);
	await env.DB.prepare(
		`INSERT INTO media_files (recording_id, type, format, storage_backend, storage_key, file_size_bytes, duration_seconds, created_at)
		 VALUES (?, 'audio', 'wav', 'r2', ?, ?, 1, ?)`,
	)
		.bind(recordingId, `test/${crypto.randomUUID()}.wav`, bytes, at)
		.run();
}

/** A streamed recording: its parts of these sizes, each stored at its time. */
export async function streamedFile(userId: number, meetingId: number, parts: { bytes: number; at: string }[]): Promise<void> {
	const first = parts[0]?.at ?? new Date().toISOString();
	const recordingId = await recordingOf(userId, meetingId, first);
	const prefix = `test/${crypto.randomUUID()}`;
	const file = await env.DB.prepare(
		`INSERT INTO media_files (recording_id, type, format, storage_backend, storage_key, file_size_bytes, duration_seconds, created_at, parts, status)
		 VALUES (?, 'video', 'webm', 'r2', ?, ?, ?, ?, ?, 'completed') RETURNING id`,
	)
		.bind(
			recordingId,
			prefix,
			parts.reduce((n, p) => n + p.bytes, 0),
			parts.length,
			first,
			parts.length,
		)
		.first<{ id: number }>();
	if (!file) throw new Error("media file not inserted");
	for (const [i, part] of parts.entries()) {
		await env.DB.prepare(
			"INSERT INTO media_file_parts (media_file_id, part_number, storage_key, bytes, media_seconds, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		)
			.bind(file.id, i + 1, `${prefix}/${i + 1}`, part.bytes, i + 1, part.at)
			.run();
	}
}
