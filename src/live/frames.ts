/**
 * The frames of `/ws` (docs/live-feed.md), declared once as zod and registered in /openapi.json
 * (src/routes/live.ts), so the typed client's frame types are generated from the document
 * (packages/client/src/live-frames.ts) the way the agent's frames are. The Worker's builders
 * (feed-messages.ts, the live feed object) are typed against these, so a frame that drifts fails
 * to compile. Help, diagnostics, placement and the segment are projections of src/shapes/.
 */
import { z } from "@hono/zod-openapi";
import { PRESENTATIONS } from "../platforms/share-facts";
import { DiagnosticsView, HelpView } from "../shapes/help";
import { MeetingData } from "../shapes/meeting-data";
import { Placement, PlacementReason } from "../shapes/placement";
import { SegmentView } from "../shapes/segment";

export { PlacementReason };

/** A meeting as subscribe names it: its link. */
export const LiveMeetingLink = z.object({ platform: z.string(), native_id: z.string() }).openapi("LiveMeetingLink");
export type LiveMeetingLink = z.infer<typeof LiveMeetingLink>;

/** A meeting as the server's messages name it. */
export const LiveMeetingRef = z
	.object({ id: z.number().int(), platform: z.string(), native_id: z.string().nullable() })
	.openapi("LiveMeetingRef");
export type LiveMeetingRef = z.infer<typeof LiveMeetingRef>;

export const SubscribedFrame = z
	.object({
		type: z.literal("subscribed"),
		meetings: z.array(LiveMeetingLink).openapi({ description: "Every link accepted, those in `waiting` included" }),
		waiting: z
			.array(LiveMeetingLink)
			.optional()
			.openapi({ description: "Accepted links with no meeting of the user's yet: the first one made there is watched" }),
		denied: z.array(LiveMeetingLink).optional().openapi({ description: "Links whose platform is not one of the service's" }),
	})
	.openapi("SubscribedFrame");
export type SubscribedFrame = z.infer<typeof SubscribedFrame>;

export const UnsubscribedFrame = z
	.object({
		type: z.literal("unsubscribed"),
		meetings: z.array(LiveMeetingLink),
		reason: z.string().optional().openapi({ description: "`access_revoked` when the server ended the subscription" }),
	})
	.openapi("UnsubscribedFrame");
export type UnsubscribedFrame = z.infer<typeof UnsubscribedFrame>;

export const PongFrame = z.object({ type: z.literal("pong") }).openapi("PongFrame");
export type PongFrame = z.infer<typeof PongFrame>;

export const ErrorFrame = z
	.object({
		type: z.literal("error"),
		error: z.string(),
		status: z.number().int().optional(),
		detail: z.string().optional(),
		details: z.unknown().optional(),
	})
	.openapi("ErrorFrame");
export type ErrorFrame = z.infer<typeof ErrorFrame>;

/** `data.help` as the owner sees it. Its page text is the meeting page's: attacker-controlled, escape it where shown. */
export const MeetingHelp = HelpView.extend({}).openapi("MeetingHelp", { description: "While `needs_help`: what the bot is stuck on" });
export type MeetingHelp = z.infer<typeof MeetingHelp>;
/** `data.diagnostics`: the driver's last steps, the page it was on, its text and a screenshot. */
export const MeetingDiagnostics = DiagnosticsView.extend({}).openapi("MeetingDiagnostics", {
	description: "On a failed meeting: what its bot saw last",
});
export type MeetingDiagnostics = z.infer<typeof MeetingDiagnostics>;
/** A screenshot the owner may open: a short-lived signed link of the gateway, or null when there is none. */
export type ScreenshotLink = Pick<MeetingHelp, "screenshot" | "screenshot_url">;
/** `data.placement`: what a meeting waiting for a bot host waits on. */
export const MeetingPlacement = Placement.extend({}).openapi("MeetingPlacement", {
	description: "While the meeting waits for a bot host: since when, until when, and why (docs/api.md#waiting-for-a-bot-host)",
});
export type MeetingPlacement = z.infer<typeof MeetingPlacement>;

/**
 * Why a meeting is where it is, when there is something to say: some of `data`'s keys
 * (src/shapes/meeting-data.ts), plus the status step's `reason`.
 */
export const MeetingStatusData = z
	.object({
		reason: z.string().nullable().optional(),
		...MeetingData.pick({
			completion_reason: true,
			completion_cause: true,
			failure_detail: true,
			failure_cause: true,
			auto_join_error: true,
		}).shape,
		help: MeetingHelp.optional().openapi({
			description: "While `needs_help`: what the bot is stuck on (docs/api.md#help-and-diagnostics)",
		}),
		diagnostics: MeetingDiagnostics.optional().openapi({ description: "On a failed meeting: what its bot saw last" }),
		placement: MeetingPlacement.optional().openapi({
			description: "While the meeting waits for a bot host (docs/api.md#waiting-for-a-bot-host): on the note that says what it waits on",
		}),
	})
	.openapi("MeetingStatusData");
export type MeetingStatusData = z.infer<typeof MeetingStatusData>;

export const MeetingStatusFrame = z
	.object({
		type: z.literal("meeting.status"),
		meeting: LiveMeetingRef,
		payload: z.object({ status: z.string(), data: MeetingStatusData.nullable() }),
		user_id: z.number().int(),
		ts: z.string(),
	})
	.openapi("MeetingStatusFrame");
export type MeetingStatusFrame = z.infer<typeof MeetingStatusFrame>;

/**
 * A segment as the live feed carries it: `language` always said (null when unknown), while a key
 * the bot did not send (`confidence`, `words`, the absolute times) is left out, as /ws has always done.
 */
export const LiveSegment = SegmentView.extend({ language: z.string().nullable() }).openapi("LiveSegment");
export type LiveSegment = z.infer<typeof LiveSegment>;

export const TranscriptFrame = z
	.object({
		type: z.literal("transcript"),
		meeting: LiveMeetingRef,
		speaker: z.string(),
		confirmed: z.array(LiveSegment).openapi({ description: "The segment just confirmed (empty for a draft)" }),
		pending: z
			.array(LiveSegment)
			.openapi({ description: "All of the speaker's open drafts: replaces the previous `pending` of this speaker" }),
		ts: z.string(),
	})
	.openapi("TranscriptFrame");
export type TranscriptFrame = z.infer<typeof TranscriptFrame>;

export const ChatMessageFrame = z
	.object({
		type: z.literal("chat_message"),
		meeting: LiveMeetingRef,
		sender: z.string(),
		text: z.string(),
		timestamp: z.number(),
		is_from_bot: z.boolean(),
	})
	.openapi("ChatMessageFrame");
export type ChatMessageFrame = z.infer<typeof ChatMessageFrame>;

export const InteractiveEventType = z
	.enum([
		"speak.started",
		"speak.completed",
		"speak.interrupted",
		"chat.received",
		"chat.sent",
		"screen.sharing_started",
		"screen.sharing_stopped",
		"avatar.set",
		"avatar.reset",
		"participant.joined",
		"participant.left",
	])
	.openapi("InteractiveEventType");
export type InteractiveEventType = z.infer<typeof InteractiveEventType>;

/** What the bot said about an interactive event; these fields sit beside `type` and `meeting`. */
const interactiveFields = {
	text: z.string().optional(),
	source: z.string().optional(),
	sender: z.string().optional(),
	timestamp: z.number().optional(),
	content_type: z.string().optional(),
	presented_as: z.enum(PRESENTATIONS).optional().openapi({
		description: "`screen.sharing_*`: whether the content went out as the platform's screen share or on the bot's camera",
	}),
	participant: z.object({ id: z.string(), name: z.string() }).optional(),
};
export type InteractiveFields = z.infer<z.ZodObject<typeof interactiveFields>>;

/** The bot's interactive events. */
export const InteractiveFrame = z
	.object({ type: InteractiveEventType, meeting: LiveMeetingRef, ...interactiveFields, ts: z.string() })
	.openapi("InteractiveFrame");
export type InteractiveFrame = z.infer<typeof InteractiveFrame>;

/** Frames about a meeting. */
export const MeetingFrame = z.union([MeetingStatusFrame, TranscriptFrame, ChatMessageFrame, InteractiveFrame]).openapi("MeetingFrame");
export type MeetingFrame = z.infer<typeof MeetingFrame>;
/** Every frame the server sends. */
export const LiveFrame = z
	.union([
		SubscribedFrame,
		UnsubscribedFrame,
		PongFrame,
		ErrorFrame,
		MeetingStatusFrame,
		TranscriptFrame,
		ChatMessageFrame,
		InteractiveFrame,
	])
	.openapi("LiveFrame", { description: "A frame the server sends on /ws (docs/live-feed.md)" });
export type LiveFrame = z.infer<typeof LiveFrame>;

/** What the client sends. */
export const LiveAction = z
	.union([
		z.object({ action: z.literal("subscribe"), meetings: z.array(LiveMeetingLink) }),
		z.object({ action: z.literal("unsubscribe"), meetings: z.array(LiveMeetingLink) }),
		z.object({ action: z.literal("ping") }),
	])
	.openapi("LiveAction", { description: "A message the client sends on /ws" });
export type LiveAction = z.infer<typeof LiveAction>;

/** The /ws frames as /openapi.json components (src/routes/live.ts registers them). */
export const LIVE_FRAME_COMPONENTS = { LiveFrame, MeetingFrame, LiveAction, MeetingStatusData, InteractiveEventType } as const;
