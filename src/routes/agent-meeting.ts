import { createRoute, z } from "@hono/zod-openapi";
import { agentCaller } from "../agent/caller";
import { COPILOT_OWNER_ONLY, meetingForCopilot, ownCopilotMeeting, relayHealth, rememberCopilot } from "../agent/copilot-meetings";
import { Platform } from "../bot-channel/protocol";
import { ApiError, invalidField, notFound } from "../errors";
import { meetingRoom } from "../objects";
import { agentMeetingStreamRoutes } from "./agent-meeting-stream";
import { NativeMeetingId } from "./meeting-link-params";
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

const ProcessOutcome = z
	.union([z.object({ processing: z.literal(true), resumed_from: z.string() }), z.object({ processing: z.literal(false) })])
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

const StartBody = z.strictObject({
	native_id: NativeMeetingId,
	platform: Platform,
	title: z.string().max(500).nullable().optional(),
});

const ProcessBody = z.strictObject({
	native_id: NativeMeetingId,
	platform: Platform,
	on: z.boolean(),
	meeting_id: z
		.string()
		.max(255)
		.optional()
		.openapi({ description: "When sent, equals native_id (meeting_id == session_uid == native_id)" }),
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
		const live = await meetingRoom(c.env, meeting.id).copilotStart({
			caller,
			meetingId: meeting.id,
			nativeId: body.native_id,
			platform: body.platform,
			title: title ?? titleOf(meeting.data),
		});
		// The room never hands a copilot to a second user (a meeting changes no owner; this is its own guard).
		if (!live) throw new ApiError(403, COPILOT_OWNER_ONLY);
		await rememberCopilot(c.env, caller.userId, {
			meeting_id: meeting.id,
			platform: body.platform,
			native_id: body.native_id,
			token_id: caller.tokenId,
		});
		return c.json({ ...live, platform: body.platform }, 202);
	},
);

agentMeetingRoutes.openapi(
	createRoute({
		method: "post",
		path: "/meeting/process",
		request: { body: jsonBody(ProcessBody) },
		responses: {
			200: jsonResponse(ProcessOutcome, "on: resumes from the meeting's cursor; off: freezes it"),
			...errors({
				403: "The meeting on that link is someone else's (read through a shared workspace)",
				404: "No copilot was started in a meeting of the caller's on that link",
				422: "A field error",
			}),
		},
	}),
	async (c) => {
		const body = c.req.valid("json");
		if (body.meeting_id !== undefined && body.meeting_id !== body.native_id)
			throw invalidField(["body", "meeting_id"], "meeting_id must equal native_id (meeting_id == session_uid == native_id)");
		const link = { platform: body.platform, nativeId: body.native_id };
		const meeting = await ownCopilotMeeting(c.env, c.get("identity").userId, link, "any");
		const outcome = meeting ? await meetingRoom(c.env, meeting.id).copilotProcess(body.on) : null;
		if (!outcome) throw notFound(`No live copilot for ${body.platform}/${body.native_id}: start one with POST /agent/api/meeting/start`);
		return c.json(outcome, 200);
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
