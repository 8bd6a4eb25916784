// Drizzle store: the bot routes' reads of meetings and their bots.
import { and, desc, eq, gte, inArray } from "drizzle-orm";
import { type Act, FailureCause, MAX_QUEUED_COMMAND_BYTES, MAX_QUEUED_COMMANDS } from "../bot-channel/protocol";
import { db } from "../db";
import type { MeetingRow } from "../db/schema";
import { meetings } from "../db/schema";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import type { MeetingDiagnostics, MeetingHelp } from "../live/frames";
import { findOpenMeetingOnLink } from "../meetings/meeting-store";
import { placementOf } from "../meetings/placement-record";
import { isLive, LIVE_STATUSES, type MeetingStatus } from "../meetings/status-machine";
import { meetingRoom } from "../objects";
import { withLinkedData } from "../screenshots/screenshots";
import { endWithoutRoom } from "./end-without-room";

/** A meeting as the bot routes name it: `{platform}/{native_meeting_id}`. */
export interface BotLinkRef {
	platform: string;
	native_meeting_id: string;
}

/** The user's live meeting on a link, or the 404 of interactive and control routes (docs/api.md#interactive-bot-actions). */
export async function liveMeetingOn(env: Env, userId: number, platform: string, nativeId: string) {
	const row = await findOpenMeetingOnLink(env, userId, platform, nativeId);
	if (!row || !isLive(row.status as MeetingStatus)) throw notFound(`No active meeting found for ${platform}/${nativeId}`);
	return row;
}

/**
 * Hands a command to the meeting's room. A bot that is away gets its commands when it is back,
 * up to MAX_QUEUED_COMMANDS and MAX_QUEUED_COMMAND_BYTES; past that, new ones are refused with
 * 409 rather than dropping any.
 */
export async function relayToBot(env: Env, row: MeetingRow, act: Act): Promise<void> {
	const outcome = await meetingRoom(env, row.id).command(act);
	if (outcome === "no_live_bot") throw notFound(`No active meeting found for ${row.platform}/${row.nativeMeetingId}`);
	if (outcome === "queue_full") {
		throw new ApiError(
			409,
			`The bot is not connected and already has ${MAX_QUEUED_COMMANDS} commands waiting; try again once it reconnects`,
		);
	}
	if (outcome === "queue_too_large") {
		throw new ApiError(
			409,
			`The bot is not connected and its waiting commands would pass ${MAX_QUEUED_COMMAND_BYTES / 1024 / 1024} MB; try again once it reconnects`,
		);
	}
}

/** Stops the user's live bot on a link (DELETE /bots/...); 404 when none is live there. */
export async function stopBot(env: Env, caller: { userId: number }, link: BotLinkRef): Promise<MeetingRow> {
	const row = await liveMeetingOn(env, caller.userId, link.platform, link.native_meeting_id);
	// No room holds it (its launch broke before the hand-off): the stop ends it here instead.
	if (!(await meetingRoom(env, row.id).stop())) await endWithoutRoom(env, row);
	return row;
}

/**
 * A bot that failed stays in GET /bots/status for this long after it ended, so a caller who
 * sent it (POST /bots never reports a failed join) sees the failure and its reason there.
 */
export const FAILED_BOT_SHOWN_MS = 10 * 60_000;
/** At most this many failed bots are listed, the most recent first. */
export const FAILED_BOTS_SHOWN = 20;

/** The caller's running bots, then those that failed in the last 10 minutes with why (GET /bots/status). */
export async function botStatuses(env: Env, caller: { userId: number }) {
	const { userId } = caller;
	const failedSince = new Date(Date.now() - FAILED_BOT_SHOWN_MS).toISOString();
	const [live, failed] = await Promise.all([
		db(env)
			.select()
			.from(meetings)
			.where(and(eq(meetings.userId, userId), inArray(meetings.status, [...LIVE_STATUSES])))
			.orderBy(desc(meetings.id))
			.all(),
		db(env)
			.select()
			.from(meetings)
			.where(and(eq(meetings.userId, userId), eq(meetings.status, "failed"), gte(meetings.endTime, failedSince)))
			.orderBy(desc(meetings.endTime), desc(meetings.id))
			.limit(FAILED_BOTS_SHOWN)
			.all(),
	]);
	return Promise.all([...live, ...failed].map(async (r) => botStatus(await withLinkedData(env, r))));
}

function botStatus(r: MeetingRow) {
	const failed = r.status === "failed";
	const stuck = r.status === "needs_help" && isObject(r.data.help);
	const placement = failed ? null : placementOf(r.data);
	const cause = FailureCause.safeParse(r.data.failure_cause);
	const detail = {
		...(typeof r.data.failure_detail === "string" ? { failure_detail: r.data.failure_detail } : {}),
		...(cause.success ? { failure_cause: cause.data } : {}),
		...(isObject(r.data.diagnostics) ? { diagnostics: r.data.diagnostics as MeetingDiagnostics } : {}),
	};
	return {
		meeting_id: r.id,
		container_id: `bot-${r.id}`,
		container_name: `bot-${r.platform}-${r.nativeMeetingId}`,
		platform: r.platform,
		native_meeting_id: r.nativeMeetingId,
		status: r.status,
		normalized_status: r.status,
		bot_name: r.botName,
		created_at: r.createdAt,
		start_time: r.startTime,
		end_time: r.endTime,
		completion_reason: r.completionReason,
		failure_stage: r.failureStage,
		labels: {},
		...(failed ? { data: { completion_reason: r.completionReason, failure_stage: r.failureStage, ...detail } } : {}),
		// A stuck bot says what it is stuck on (docs/api.md#help-and-diagnostics).
		...(stuck ? { data: { completion_reason: null, failure_stage: null, help: r.data.help as MeetingHelp } } : {}),
		...(placement ? { data: { completion_reason: null, failure_stage: null, placement } } : {}),
	};
}

const isObject = (value: unknown): boolean => Boolean(value) && typeof value === "object" && !Array.isArray(value);
