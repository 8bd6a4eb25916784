/**
 * The API's wire shapes the dashboard reads (docs/api.md), as the typed client declares them:
 * generated from the Worker's own /openapi.json, so a page that reads a field the API no longer
 * has fails to compile. Everything in them that a meeting produced (names, titles, text) is
 * untrusted and is only ever rendered as text.
 */
import type { Platform, ResponseOf, Schemas } from "@meetbot/client";

export type { Platform };
export type Meeting = Schemas["Meeting"];
export type MeetingSummary = Schemas["MeetingSummary"];
/**
 * A transcript line as the pages hold it, from GET /transcripts, the live feed or the copilot's
 * stream: the generated segment, with the fields the view orders by always present and the rest as they came.
 */
export type Segment = Pick<Schemas["TranscriptionSegment"], SegmentOrder> & Partial<Omit<Schemas["TranscriptionSegment"], SegmentOrder>>;
/** What every held segment has: the fields the view orders, groups and marks drafts by; the rest ride along as they came. */
type SegmentOrder = "segment_id" | "speaker" | "text" | "start" | "end" | "language" | "completed";
export type Recording = Schemas["Recording"];
export type SearchResults = Schemas["SearchResults"];
export type SearchHit = Schemas["SearchHit"];
export type MediaFile = Schemas["MediaFile"];
export type Calendar = Schemas["CalendarConnection"];
/** A calendar's last sync; `{}` before the first one. */
export type SyncStamp = ResponseOf<"/user/calendars/{calendar_id}/sync", "get">;
export type Me = ResponseOf<"/auth/me", "get">;
export type ChatLine = ResponseOf<"/bots/{platform}/{native_meeting_id}/chat", "get">["messages"][number];
/** Join health, the operator's figures (GET /internal/fleet/join-health, docs/bot-fleet.md#join-health). */
export type JoinHealth = Schemas["JoinHealth"];
export type PlatformJoinHealth = Schemas["PlatformJoinHealth"];
/** What the account used (GET /usage, GET /usage/meetings, docs/api.md#usage). */
export type UsageReport = Schemas["UsageReport"];
export type UsageCaps = Schemas["UsageCaps"];
/** A set cap (the API gives null for one not set). */
export type SetCap = NonNullable<Schemas["UsageCap"]>;
export type MeetingUsage = Schemas["MeetingUsage"];
