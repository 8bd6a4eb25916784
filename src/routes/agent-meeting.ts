import { createRoute, z } from "@hono/zod-openapi";
import { type AgentCaller, agentCaller } from "../agent/caller";
import {
	COPILOT_OWNER_ONLY,
	meetingForCopilot,
	meetingToProcess,
	namedCopilotMeeting,
	ownCopilotMeeting,
	relayHealth,
	rememberCopilot,
} from "../agent/copilot-meetings";
import { COPILOT_STATES, type ProcessOutcome as CopilotOutcome, type LiveMeeting as LiveCopilot } from "../agent/live-copilot";
import { MEETING_REF_MAX, meetingOfRef } from "../agent/meeting-ref";
import { Platform } from "../bot-channel/protocol";
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { NativeMeetingId } from "../meetings/meeting-link-params";
import { readableMeetingView } from "../meetings/meeting-queries";
import { isTerminal, type MeetingStatus } from "../meetings/status-machine";
import { meetingStream } from "../objects";
import { agentMeetingStreamRoutes } from "./agent-meeting-stream";
import { MeetingRecord } from "./meeting-schemas";
import { ApiErrorBody, jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** The meeting stream and the live copilot (docs/meeting-stream.md). Mounted under each of AGENT_PREFIXES. */
export const agentMeetingRoutes = routeModule();

// The meeting stream (docs/meeting-stream.md#events-and-resume) lives in its own module.
agentMeetingRoutes.route("/", agentMeetingStreamRoutes);

const errors = (statuses: Record<number, string>) =>
	Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, jsonResponse(ApiErrorBody, description)]));

// ---- The live copilot: start, process, relay-health (docs/meeting-stream.md#the-copilot) ----

const LiveMeeting = z
	.object({
		meeting_id: z.string().openapi({ description: "Equals session_uid and native_id (the identity rule)" }),
		session_uid: z.string(),
		native_id: z.string(),
		platform: Platform,
		title: z.string(),
		processing: z.boolean(),
		meeting: z.number().int().openapi({ description: "The meeting record (GET /meetings/{meeting_id}) the copilot belongs to" }),
	})
	.openapi("LiveMeeting");

const ProcessedMeeting = {
	native_id: z.string(),
	meeting_id: z.string().openapi({ description: "Equals native_id (the identity rule)" }),
	meeting: z
		.number()
		.int()
		.nullable()
		.openapi({ description: "The meeting record whose copilot it is; null when off and no meeting of the caller's is on the link" }),
};
const ProcessOutcome = z
	.union([
		z.object({
			processing: z.literal(true),
			resumed_from: z.string().openapi({ description: "The stream id processing resumes after" }),
			...ProcessedMeeting,
		}),
		z.object({ processing: z.literal(false), ...ProcessedMeeting }),
	])
	.openapi("CopilotProcessing");

const RelayHealth = z
	.object({
		native_resolve: z.object({
			ok: z.boolean(),
			kind: z
				.enum(["unauthorized", "payment_required", "rate_limited", "bad_request", "unavailable", "error", "unresolved_display"])
				.nullable(),
			detail: z.string(),
			at: z.string(),
			misses: z.number().int(),
		}),
		ingest: z.object({ ok: z.boolean(), last_segment_at: z.string().nullable(), segments: z.number().int() }),
	})
	.openapi("RelayHealth");

// Other fields (a `subject`, the reference's identity hint) are ignored, never refused.
const StartBody = z.object({
	native_id: NativeMeetingId,
	platform: Platform,
	title: z.string().max(500).nullable().optional(),
});

const ProcessBody = z.object({
	native_id: NativeMeetingId,
	platform: Platform,
	on: z.boolean(),
	meeting_id: z.string().max(255).optional().openapi({
		description: "Which meeting on the link: its native id (the identity rule) or its record id (`id` of GET /meetings and POST /bots)",
	}),
});

const titleOf = (data: Record<string, unknown>) => (typeof data.title === "string" && data.title ? data.title : null);

agentMeetingRoutes.openapi(
	createRoute({
		method: "post",
		path: "/meeting/start",
		request: { body: jsonBody(StartBody) },
		responses: {
			202: jsonResponse(
				LiveMeeting,
				"The copilot runs (processing on); the meeting record is the caller's on that link, planned if there was none",
			),
			...errors({ 403: "The open meeting on that link is someone else's (read through a shared workspace)", 422: "A field error" }),
		},
	}),
	async (c) => {
		const body = c.req.valid("json");
		const caller = agentCaller(c.get("identity"));
		const title = body.title?.trim() || null;
		const meeting = await meetingForCopilot(c.env, caller.userId, { platform: body.platform, nativeId: body.native_id, title });
		const live = await startCopilotIn(c.env, caller, meeting, title);
		return c.json({ ...live, platform: body.platform }, 202);
	},
);

/** Starts (or touches) the caller's copilot in their meeting; 403 when its MeetingStream keeps it another user's. */
async function startCopilotIn(env: Env, caller: AgentCaller, meeting: MeetingRow, title: string | null): Promise<LiveCopilot> {
	const link = { platform: meeting.platform as Platform, nativeId: meeting.nativeMeetingId ?? String(meeting.id) };
	const live = await meetingStream(env, meeting.id).copilotStart({
		caller,
		meetingId: meeting.id,
		nativeId: link.nativeId,
		platform: link.platform,
		title: title ?? titleOf(meeting.data),
	});
	// The MeetingStream never hands a copilot to a second user (a meeting changes no owner; this is its own guard).
	if (!live) throw new ApiError(403, COPILOT_OWNER_ONLY);
	await rememberCopilot(env, caller.userId, {
		meeting_id: meeting.id,
		platform: link.platform,
		native_id: link.nativeId,
		token_id: caller.tokenId,
	});
	return live;
}

agentMeetingRoutes.openapi(
	createRoute({
		method: "post",
		path: "/meeting/process",
		request: { body: jsonBody(ProcessBody) },
		responses: {
			202: jsonResponse(
				ProcessOutcome,
				"on: resumes from the meeting's cursor, starting the copilot (as meeting/start) when none runs; off: freezes it",
			),
			...errors({
				403: "The meeting on that link is someone else's (read through a shared workspace)",
				409: "on: the meeting has ended (named by meeting_id, or the caller's newest on the link when none is open), and had no copilot",
				422: "A field error",
			}),
		},
	}),
	async (c) => {
		const body = c.req.valid("json");
		const caller = agentCaller(c.get("identity"));
		const link = { platform: body.platform, nativeId: body.native_id };
		const named = await namedCopilotMeeting(c.env, caller.userId, link, body.meeting_id);
		const answer = (meeting: MeetingRow | undefined, outcome: CopilotOutcome) =>
			c.json({ ...outcome, native_id: body.native_id, meeting_id: body.native_id, meeting: meeting?.id ?? null }, 202);
		if (!body.on) {
			// Off with no copilot running is what the caller asked for already.
			const meeting = named ?? (await ownCopilotMeeting(c.env, caller.userId, link, "any"));
			if (meeting) await meetingStream(c.env, meeting.id).copilotProcess(false);
			return answer(meeting, { processing: false });
		}
		// Spawn-or-touch, as the reference's process on: the running copilot resumes, else one starts as meeting/start starts it.
		const meeting = named ?? (await meetingToProcess(c.env, caller.userId, link));
		const resumed = await meetingStream(c.env, meeting.id).copilotProcess(true);
		if (resumed) return answer(meeting, resumed);
		if (isTerminal(meeting.status as MeetingStatus))
			throw new ApiError(
				409,
				`Meeting ${meeting.id} has ended: a copilot starts only in a meeting that has not${named ? "" : " (meeting/start plans a new one on the link)"}`,
			);
		await startCopilotIn(c.env, caller, meeting, null);
		return answer(meeting, { processing: true, resumed_from: "0" });
	},
);

agentMeetingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meeting/relay-health",
		responses: { 200: jsonResponse(RelayHealth, "Typed health of the transcript relay to the caller's live copilots") },
	}),
	async (c) => c.json(await relayHealth(c.env, c.get("identity").userId), 200),
);

/** A meeting as a person names it (GET /meeting/resolve and /meeting/copilot). */
const MeetingRefQuery = z.object({
	meeting: z
		.string()
		.trim()
		.min(1, "Type a meeting's number, its link (Google Meet, Zoom or Teams) or its code, such as abc-defg-hij")
		.max(MEETING_REF_MAX)
		.openapi({
			description:
				"A meeting as a person names it: its number (`id`), its Google Meet, Zoom or Teams link, or its own code (`abc-defg-hij`, a Zoom or Teams number)",
		}),
});

agentMeetingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meeting/resolve",
		request: { query: MeetingRefQuery },
		responses: {
			200: jsonResponse(MeetingRecord, "The caller's meeting it names (their own first, the newest), as GET /meetings/{meeting_id}"),
			...errors({ 404: "No meeting the caller may read matches it", 422: "Not a meeting number, link or code" }),
		},
	}),
	async (c) => {
		const identity = c.get("identity");
		const row = await meetingOfRef(c.env, identity.userId, c.req.valid("query").meeting);
		return c.json(await readableMeetingView(c.env, identity, row.id), 200);
	},
);

const CopilotStatus = z
	.object({
		meeting: z.number().int().openapi({ description: "The meeting record (GET /meetings/{meeting_id})" }),
		copilot: z.enum(COPILOT_STATES).openapi({
			description: "`none` (never started here), `running` (processing on), `paused` (processing off) or `ended` (the meeting ended)",
		}),
	})
	.openapi("CopilotStatus");

agentMeetingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meeting/copilot",
		request: { query: MeetingRefQuery },
		responses: {
			200: jsonResponse(CopilotStatus, "Where the meeting's copilot is, for anyone who may read the meeting"),
			...errors({ 404: "No meeting the caller may read matches it", 422: "Not a meeting number, link or code" }),
		},
	}),
	async (c) => {
		const row = await meetingOfRef(c.env, c.get("identity").userId, c.req.valid("query").meeting);
		return c.json({ meeting: row.id, copilot: await meetingStream(c.env, row.id).copilotStatus() }, 200);
	},
);
