import { createRoute, z } from "@hono/zod-openapi";
import { and, desc, eq, gte, inArray } from "drizzle-orm";
import { type Act, AutomaticLeave, MAX_QUEUED_COMMANDS, Platform } from "../bot-channel/protocol";
import { endWithoutRoom } from "../bots/end-without-room";
import { launchBot } from "../bots/launch";
import type { MeetingRow } from "../db/schema";
import { meetings } from "../db/schema";
import type { Env } from "../env";
import { ApiError, invalidField, notFound } from "../errors";
import { constructMeetingUrl, parseMeetingLink } from "../meetings/meeting-link";
import { db, findOpenMeetingOnLink, meetingView } from "../meetings/meeting-store";
import { isLive, LIVE_STATUSES, type MeetingStatus } from "../meetings/status-machine";
import { meetingRoom } from "../objects";
import { MeetingLinkParams, NativeMeetingId } from "./meeting-link-params";
import { BotStatusList, MeetingRecord as Meeting } from "./meeting-schemas";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** The bot routes (docs/api.md#bots): send, list, stop, reconfigure. */
export const botRoutes = routeModule();

const LANGUAGE = z.string().regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, "an ISO 639 language code such as 'en' or 'pt-BR'");
const Task = z.enum(["transcribe", "translate"]);
export const BotLink = MeetingLinkParams;

/** The user's live meeting on a link, or the 404 of interactive and control routes (docs/api.md#interactive-bot-actions). */
export async function liveMeetingOn(env: Env, userId: number, platform: string, nativeId: string) {
	const row = await findOpenMeetingOnLink(env, userId, platform, nativeId);
	if (!row || !isLive(row.status as MeetingStatus)) throw notFound(`No active meeting found for ${platform}/${nativeId}`);
	return row;
}

/**
 * Hands a command to the meeting's room. A bot that is away gets its commands when it is back,
 * up to MAX_QUEUED_COMMANDS; past that, new ones are refused with 409 rather than dropping any.
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
}

botRoutes.openapi(
	createRoute({
		method: "post",
		path: "/bots",
		request: {
			body: jsonBody(
				z.object({
					platform: Platform,
					native_meeting_id: NativeMeetingId.nullable().optional(),
					meeting_url: z.string().max(2048).nullable().optional(),
					bot_name: z.string().trim().min(1).max(100).nullable().optional(),
					language: LANGUAGE.nullable().optional(),
					task: Task.nullable().optional(),
					passcode: z.string().min(1).max(128).nullable().optional(),
					voice_agent_enabled: z.boolean().nullable().optional(),
					recording_enabled: z.boolean().nullable().optional(),
					transcribe_enabled: z.boolean().nullable().optional(),
					automatic_leave: AutomaticLeave.nullable().optional(),
				}),
			),
		},
		responses: { 201: jsonResponse(Meeting, "The meeting, now `requested`; join progress shows in GET /bots/status") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		const identity = c.get("identity");
		let nativeId = body.native_meeting_id ?? null;
		let passcode = body.passcode ?? null;
		if (!nativeId && body.meeting_url) {
			const parsed = parseMeetingLink(body.meeting_url);
			if (!parsed || parsed.platform !== body.platform) throw invalidField(["body", "meeting_url"], `Not a ${body.platform} meeting link`);
			nativeId = parsed.native_meeting_id;
			passcode ??= parsed.passcode ?? null;
		}
		if (!nativeId) throw invalidField(["body", "native_meeting_id"], "native_meeting_id (or meeting_url) is required");
		const meetingUrl = constructMeetingUrl(body.platform, nativeId, passcode);
		if (!meetingUrl) throw invalidField(["body", "native_meeting_id"], `Not a valid ${body.platform} meeting id`);
		const { start } = await launchBot(
			c.env,
			{ userId: identity.userId, maxConcurrent: identity.maxConcurrent, platform: body.platform, nativeMeetingId: nativeId, meetingUrl },
			{ ...body, passcode },
			"user",
			(s) => meetingRoom(c.env, s.meeting.id).start(s),
		);
		return c.json(meetingView(start.meeting), 201);
	},
);

botRoutes.openapi(
	createRoute({
		method: "get",
		path: "/bots/status",
		responses: {
			200: jsonResponse(BotStatusList, "The caller's running bots, then those that failed in the last 10 minutes with why"),
		},
	}),
	async (c) => {
		const userId = c.get("identity").userId;
		const failedSince = new Date(Date.now() - FAILED_BOT_SHOWN_MS).toISOString();
		const [live, failed] = await Promise.all([
			db(c.env)
				.select()
				.from(meetings)
				.where(and(eq(meetings.userId, userId), inArray(meetings.status, [...LIVE_STATUSES])))
				.orderBy(desc(meetings.id))
				.all(),
			db(c.env)
				.select()
				.from(meetings)
				.where(and(eq(meetings.userId, userId), eq(meetings.status, "failed"), gte(meetings.endTime, failedSince)))
				.orderBy(desc(meetings.endTime), desc(meetings.id))
				.limit(FAILED_BOTS_SHOWN)
				.all(),
		]);
		return c.json({ running_bots: [...live, ...failed].map(botStatus) }, 200);
	},
);

/**
 * A bot that failed stays in GET /bots/status for this long after it ended, so a caller who
 * sent it (POST /bots never reports a failed join) sees the failure and its reason there.
 */
export const FAILED_BOT_SHOWN_MS = 10 * 60_000;
/** At most this many failed bots are listed, the most recent first. */
export const FAILED_BOTS_SHOWN = 20;

function botStatus(r: MeetingRow) {
	const failed = r.status === "failed";
	const detail = typeof r.data.failure_detail === "string" ? { failure_detail: r.data.failure_detail } : {};
	return {
		meeting_id: r.id,
		container_id: `bot-${r.id}`,
		container_name: `bot-${r.platform}-${r.nativeMeetingId}`,
		platform: r.platform,
		native_meeting_id: r.nativeMeetingId,
		status: r.status,
		normalized_status: r.status,
		bot_name: r.botName,
		created_at: r.updatedAt,
		start_time: r.startTime,
		end_time: r.endTime,
		completion_reason: r.completionReason,
		failure_stage: r.failureStage,
		labels: {},
		...(failed ? { data: { completion_reason: r.completionReason, failure_stage: r.failureStage, ...detail } } : {}),
	};
}

botRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/bots/{platform}/{native_meeting_id}",
		request: { params: BotLink },
		responses: { 204: { description: "Stop requested; the meeting ends `completed` with `stopped`" } },
	}),
	async (c) => {
		const { platform, native_meeting_id } = c.req.valid("param");
		const row = await liveMeetingOn(c.env, c.get("identity").userId, platform, native_meeting_id);
		// No room holds it (its launch broke before the hand-off): the stop ends it here instead.
		if (!(await meetingRoom(c.env, row.id).stop())) await endWithoutRoom(c.env, row);
		return c.body(null, 204);
	},
);

botRoutes.openapi(
	createRoute({
		method: "put",
		path: "/bots/{platform}/{native_meeting_id}/config",
		request: {
			params: BotLink,
			body: jsonBody(
				z
					.strictObject({ language: LANGUAGE.nullable().optional(), task: Task.nullable().optional() })
					.refine((b) => b.language !== undefined || b.task !== undefined, { message: "Provide language and/or task" }),
			),
		},
		responses: { 202: jsonResponse(z.object({ message: z.string(), meeting_id: z.number().int() }), "Sent to the bot") },
	}),
	async (c) => {
		const { platform, native_meeting_id } = c.req.valid("param");
		const body = c.req.valid("json");
		const row = await liveMeetingOn(c.env, c.get("identity").userId, platform, native_meeting_id);
		const act: Act = { action: "reconfigure", language: body.language, task: body.task };
		await relayToBot(c.env, row, act);
		await db(c.env)
			.update(meetings)
			.set({
				botOptions: {
					...row.botOptions,
					...(body.language !== undefined ? { language: body.language } : {}),
					...(body.task ? { task: body.task } : {}),
				},
			})
			.where(eq(meetings.id, row.id));
		return c.json({ message: "Config update sent", meeting_id: row.id }, 202);
	},
);
