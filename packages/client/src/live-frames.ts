/**
 * The frames of `/ws` (docs/live-feed.md): the Worker declares them once (src/live/frames.ts) and
 * registers them in its /openapi.json, so these are names for the generated components.
 */
import type { components } from "./schema.js";

type S = components["schemas"];

/** A meeting as subscribe names it: its link. */
export type LiveMeetingLink = S["LiveMeetingLink"];
/** A meeting as the server's messages name it. */
export type LiveMeetingRef = S["LiveMeetingRef"];
export type SubscribedFrame = S["SubscribedFrame"];
export type UnsubscribedFrame = S["UnsubscribedFrame"];
export type PongFrame = S["PongFrame"];
export type ErrorFrame = S["ErrorFrame"];
/** Why a meeting is where it is, when there is something to say. */
export type MeetingStatusData = S["MeetingStatusData"];
/** `data.help`. Its page text is the meeting page's: attacker-controlled, escape it where shown. */
export type MeetingHelp = S["MeetingHelp"];
/** `data.diagnostics`: the driver's last steps, the page it was on, its text and a screenshot. */
export type MeetingDiagnostics = S["MeetingDiagnostics"];
/** A screenshot the owner may open: a short-lived signed link of the gateway, or null when there is none. */
export type ScreenshotLink = Pick<MeetingHelp, "screenshot" | "screenshot_url">;
/** `data.placement`: a meeting waiting for a bot host says since when, until when, and why. */
export type MeetingPlacement = S["MeetingPlacement"];
/** Why a meeting still has no bot. */
export type PlacementReason = MeetingPlacement["reason"];
export type MeetingStatusFrame = S["MeetingStatusFrame"];
/** A segment as the live feed carries it. */
export type LiveSegment = S["LiveSegment"];
export type TranscriptFrame = S["TranscriptFrame"];
export type ChatMessageFrame = S["ChatMessageFrame"];
export type InteractiveEventType = S["InteractiveEventType"];
/** The bot's interactive events. */
export type InteractiveFrame = S["InteractiveFrame"];
/** What the bot said about an interactive event; these fields sit beside `type` and `meeting`. */
export type InteractiveFields = Omit<InteractiveFrame, "type" | "meeting" | "ts">;
/** Frames about a meeting. */
export type MeetingFrame = S["MeetingFrame"];
/** Every frame the server sends. */
export type LiveFrame = S["LiveFrame"];
/** What the client sends. */
export type LiveAction = S["LiveAction"];
