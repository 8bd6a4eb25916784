/**
 * Raw SQL store (its table is not in the drizzle schema; an upsert and a join over meetings).
 * The per-user index of started copilots (D1 `copilot_meetings`): which meetings a user's
 * copilot runs in, and with which key, so relay-health finds them without asking every room.
 * Start and process find a meeting by its link; the copilot itself (its cursor, notes, beats)
 * lives in the meeting's room.
 */
import type { Platform } from "../bot-channel/protocol";
import { isUniqueViolation } from "../db";
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError, invalidField } from "../errors";
import { constructMeetingUrl } from "../meetings/meeting-link";
import { findMeetingOnLink, findOpenMeetingOnLink, findReadableMeeting, nowIso } from "../meetings/meeting-store";
import { isTerminal, type MeetingStatus } from "../meetings/status-machine";
import { announceInRoom, createMeeting } from "../meetings/status-writes";
import { meetingStream } from "../objects";
import { callerAsKeyStandsNow } from "./caller";

export interface CopilotMeetingRow {
	meeting_id: number;
	platform: string;
	native_id: string;
	token_id: number;
	started_at: string;
}

/** How many copilots relay-health looks at: the newest ones. */
export const RELAY_HEALTH_MEETINGS = 20;

export async function rememberCopilot(
	env: Env,
	userId: number,
	row: Omit<CopilotMeetingRow, "started_at">,
	startedAt = new Date().toISOString(),
): Promise<void> {
	// Starting again (perhaps with a new key) makes that key the one the copilot stands on.
	await env.DB.prepare(
		`INSERT INTO copilot_meetings (user_id, meeting_id, platform, native_id, token_id, started_at) VALUES (?, ?, ?, ?, ?, ?)
		 ON CONFLICT (user_id, meeting_id) DO UPDATE SET token_id = excluded.token_id, started_at = excluded.started_at`,
	)
		.bind(userId, row.meeting_id, row.platform, row.native_id, row.token_id, startedAt)
		.run();
}

/** The user's newest copilots whose meeting has not ended. */
export async function liveCopilots(env: Env, userId: number, limit = RELAY_HEALTH_MEETINGS): Promise<CopilotMeetingRow[]> {
	const { results } = await env.DB.prepare(
		`SELECT c.meeting_id, c.platform, c.native_id, c.token_id, c.started_at FROM copilot_meetings c
		 JOIN meetings m ON m.id = c.meeting_id
		 WHERE c.user_id = ? AND m.status NOT IN ('completed', 'failed') ORDER BY c.started_at DESC, c.meeting_id DESC LIMIT ?`,
	)
		.bind(userId, limit)
		.all<CopilotMeetingRow>();
	return results;
}

/** A live copilot's key problem as relay-health reports it (`native_resolve.kind`). */
export type RelayFailureKind =
	| "unauthorized"
	| "payment_required"
	| "rate_limited"
	| "bad_request"
	| "unavailable"
	| "error"
	| "unresolved_display";

export interface RelayHealth {
	native_resolve: { ok: boolean; kind: RelayFailureKind | null; detail: string; at: string; misses: number };
	ingest: { ok: boolean; last_segment_at: string | null; segments: number };
}

/**
 * Relay health over the caller's live copilots: whether each still stands on a valid key (a
 * revoked or expired key is `unauthorized`, the stale key), and whether transcript reaches them.
 */
export async function relayHealth(env: Env, userId: number, now = new Date()): Promise<RelayHealth> {
	const copilots = await liveCopilots(env, userId);
	const failures: { kind: RelayFailureKind; detail: string }[] = [];
	let segments = 0;
	let lastSegmentAt: string | null = null;
	for (const copilot of copilots) {
		const key = await callerAsKeyStandsNow(env, { userId, scopes: [], tokenId: copilot.token_id }, now);
		if (!key) {
			failures.push({
				kind: "unauthorized",
				detail: `The API key that started the copilot of ${copilot.platform}/${copilot.native_id} was revoked or has expired: start it again with a valid key`,
			});
		}
		try {
			const ingest = await meetingStream(env, copilot.meeting_id).copilotIngest();
			segments += ingest.segments;
			if (ingest.last_segment_at && (!lastSegmentAt || ingest.last_segment_at > lastSegmentAt)) lastSegmentAt = ingest.last_segment_at;
		} catch {
			failures.push({
				kind: "unavailable",
				detail: `The meeting ${copilot.platform}/${copilot.native_id} could not be reached; try again`,
			});
		}
	}
	const first = failures[0];
	return {
		native_resolve: {
			ok: !first,
			kind: first?.kind ?? null,
			detail: first?.detail ?? (copilots.length > 0 ? `${copilots.length} live copilot(s), each on a valid key` : "No live copilot"),
			at: now.toISOString(),
			misses: failures.length,
		},
		// Nothing is wrong before a copilot runs; once one runs, transcript has to reach it.
		ingest: { ok: copilots.length === 0 || segments > 0, last_segment_at: lastSegmentAt, segments },
	};
}

/** The answer to a reader who does not own the meeting (a member of its shared workspace) driving its copilot. */
export const COPILOT_OWNER_ONLY = "Only the meeting's owner can start, pause or resume its copilot";

/**
 * The meeting whose copilot the caller drives on a link, the one place the owner rule is kept
 * (start and process both come here): a copilot spends its owner's model and writes to their
 * workspace, so a meeting the caller can read but does not own (a shared workspace's) is 403,
 * whatever the action. `open`: only a meeting still open counts (start); else any, the newest
 * (process). Undefined: no meeting on the link the caller can read.
 */
export async function ownCopilotMeeting(
	env: Env,
	userId: number,
	link: { platform: Platform; nativeId: string },
	which: "open" | "any",
): Promise<MeetingRow | undefined> {
	const found =
		which === "open"
			? ((await findOpenMeetingOnLink(env, userId, link.platform, link.nativeId)) ??
				openOnly(await findMeetingOnLink(env, userId, link.platform, link.nativeId)))
			: await findMeetingOnLink(env, userId, link.platform, link.nativeId);
	// The caller's own meetings on the link come first: another's is found only when they have none.
	if (found && found.userId !== userId) throw new ApiError(403, COPILOT_OWNER_ONLY);
	return found;
}

/**
 * The meeting a `meeting/process` body's `meeting_id` names on its link: none (undefined) when
 * it is absent or the native id itself (the identity rule), else the record with that id, which
 * must be on that link and the caller's own (the reference's client sends the record id there).
 */
export async function namedCopilotMeeting(
	env: Env,
	userId: number,
	link: { platform: Platform; nativeId: string },
	meetingId: string | undefined,
): Promise<MeetingRow | undefined> {
	if (meetingId === undefined || meetingId === link.nativeId) return undefined;
	const id = /^[0-9]{1,15}$/.test(meetingId) ? Number(meetingId) : null;
	const row = id === null ? undefined : await findReadableMeeting(env, userId, id);
	if (!row || row.platform !== link.platform || row.nativeMeetingId !== link.nativeId)
		throw invalidField(["body", "meeting_id"], "meeting_id must be the native id, or the id of a meeting of yours on that link");
	if (row.userId !== userId) throw new ApiError(403, COPILOT_OWNER_ONLY);
	return row;
}

/**
 * The meeting a copilot starts in: the caller's open meeting on the link, else a new idle plan
 * for the link, made as POST /meetings makes one, so a bot sent later to the link claims this
 * very record. An open meeting on the link that the caller reads but does not own is 403.
 */
export async function meetingForCopilot(
	env: Env,
	userId: number,
	link: { platform: Platform; nativeId: string; title: string | null },
): Promise<MeetingRow> {
	const found = () => ownCopilotMeeting(env, userId, link, "open");
	const existing = await found();
	if (existing) return existing;
	const now = nowIso();
	try {
		return await createMeeting(
			env,
			{
				userId,
				platform: link.platform,
				nativeMeetingId: link.nativeId,
				constructedMeetingUrl: constructMeetingUrl(link.platform, link.nativeId),
				status: "idle",
				scheduledAt: null,
				workspaceId: null,
				autoJoin: true,
				data: link.title ? { title: link.title } : {},
				createdAt: now,
				updatedAt: now,
			},
			"user",
			announceInRoom(env),
		);
	} catch (err) {
		// Another request planned the link first: that plan is the one.
		const raced = isUniqueViolation(err) ? await found() : undefined;
		if (raced) return raced;
		throw err;
	}
}

/**
 * The meeting `meeting/process` with `on:true` acts on when the body names only the link: the
 * caller's open meeting on it; else their newest meeting there, which has ended (its copilot may
 * resume, else the answer is 409, as for an ended meeting named by its record id, rather than a
 * new plan that would block POST /meetings on the link); else a plan, as meeting/start makes it.
 */
export async function meetingToProcess(env: Env, userId: number, link: { platform: Platform; nativeId: string }): Promise<MeetingRow> {
	const open = await ownCopilotMeeting(env, userId, link, "open");
	if (open) return open;
	const newest = await findMeetingOnLink(env, userId, link.platform, link.nativeId);
	// Only the caller's own: another's ended meeting read through a shared workspace is not theirs to resume.
	if (newest && newest.userId === userId) return newest;
	return meetingForCopilot(env, userId, { ...link, title: null });
}

const openOnly = (row: MeetingRow | undefined) => (row && !isTerminal(row.status as MeetingStatus) ? row : undefined);
