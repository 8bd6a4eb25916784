import { z } from "@hono/zod-openapi";
import { RecordingPlan } from "../bot-channel/recording-protocol";
import { MeetingDiagnostics, MeetingHelp, MeetingPlacement } from "../live/frames";
import { MeetingSummary } from "../meetings/meeting-summary";
import { MEETING_STATUSES } from "../meetings/status-machine";
import { MeetingData as StoredMeetingData } from "../shapes/meeting-data";
import { SegmentRecord } from "../shapes/segment";
import { Recording } from "./recording-schemas";

/**
 * The meeting record and what is built from it, as the routes answer them (docs/api.md#the-meeting-record):
 * MeetingResponse, BotStatusResponse and TranscriptionResponse, plus this service's planning
 * fields. Handlers' bodies are type-checked against these, so the document follows the code.
 */

const statusDoc = { description: `One of ${MEETING_STATUSES.map((s) => `\`${s}\``).join(", ")}` };

/** `data` (src/shapes/meeting-data.ts) as the owner reads it: help and diagnostics with their screenshot links. */
export const MeetingData = StoredMeetingData.extend({
	help: MeetingHelp.optional(),
	diagnostics: MeetingDiagnostics.optional(),
	placement: MeetingPlacement.optional(),
	summary: MeetingSummary.optional().openapi({
		description: "A completed meeting's summary, decisions and action items (docs/api.md#summaries)",
	}),
}).openapi({ description: "Meeting metadata (title, notes, languages, status reasons, calendar sources); open to other keys" });

export const MeetingRecord = z
	.object({
		id: z.number().int(),
		user_id: z.number().int(),
		platform: z.string().openapi({ description: "`google_meet`, `zoom`, `teams`, or `unknown` for a plan without a link" }),
		native_meeting_id: z.string().nullable(),
		constructed_meeting_url: z.string().nullable(),
		status: z.string().openapi(statusDoc),
		bot_container_id: z.string().nullable(),
		start_time: z.string().nullable(),
		end_time: z.string().nullable(),
		completion_reason: z.string().nullable(),
		failure_stage: z.string().nullable(),
		session_uid: z
			.string()
			.nullable()
			.openapi({ description: "The meeting's session identity: its native meeting id (null for a plan without a link)" }),
		workspace_id: z.string().nullable(),
		auto_join: z.boolean(),
		notes: z.string().nullable(),
		recording_plan: RecordingPlan.nullable().describe(
			"What the meeting's bot records (POST /bots `recording_enabled` and `recording_config`, defaults filled in): null when it records nothing",
		),
		recordings: z.array(Recording),
		data: MeetingData,
		created_at: z.string(),
		updated_at: z.string(),
	})
	.openapi("Meeting");

export const MeetingList = z.object({ meetings: z.array(MeetingRecord) }).openapi("MeetingList");

/** One row of GET /bots/status (docs/api.md#bots). */
export const RunningBot = z
	.object({
		meeting_id: z.number().int(),
		container_id: z.string(),
		container_name: z.string(),
		platform: z.string(),
		native_meeting_id: z.string().nullable(),
		status: z.string().openapi(statusDoc),
		normalized_status: z.string(),
		bot_name: z.string().nullable(),
		created_at: z.string(),
		start_time: z.string().nullable(),
		end_time: z.string().nullable(),
		labels: z.record(z.string(), z.string()),
		completion_reason: z.string().nullable(),
		failure_stage: z.string().nullable(),
		data: z
			.object({
				// Some of `data` (src/shapes/meeting-data.ts); the ending's two words always said here, null when none.
				completion_reason: z.string().nullable(),
				failure_stage: z.string().nullable(),
				...MeetingData.pick({ failure_detail: true, failure_cause: true, diagnostics: true, help: true, placement: true }).shape,
			})
			.optional()
			.openapi({
				description:
					"On a failed bot: why it failed (and what it saw last); on a bot waiting for a host: what it waits on (`placement`); on a bot that needs help: what it is stuck on",
			}),
	})
	.openapi("BotStatus");

export const BotStatusList = z.object({ running_bots: z.array(RunningBot) }).openapi("BotStatusResponse");

/** One stay in the meeting (src/meetings/talk-time.ts): someone who leaves and rejoins has several. */
export const ParticipantStay = z.object({
	joined_at: z.string().nullable().openapi({ description: "null: the bot saw only the leave (they were there before it)" }),
	left_at: z.string().nullable().openapi({ description: "null: the bot saw no leave (still there, or there when the bot left)" }),
});

/** A participant with their stays and talk time (docs/api.md#participants). */
export const MeetingParticipant = z
	.object({
		participant_id: z.string(),
		name: z.string(),
		joined_at: z.string().nullable().openapi({ description: "The first join the bot saw" }),
		left_at: z.string().nullable().openapi({ description: "The last leave, null while they are in the meeting" }),
		intervals: z.array(ParticipantStay).openapi({ description: "Every stay, in order" }),
		talk_time_s: z.number().nullable().openapi({
			description:
				"Seconds of confirmed transcript whose speaker has this participant's name; null when another participant has the same name",
		}),
	})
	.openapi("MeetingParticipant");

/** One speaker name of the transcript with their talk time (docs/api.md#participants). */
export const SpeakerTalkTime = z
	.object({
		speaker: z.string(),
		talk_time_s: z.number(),
		participant_id: z.string().nullable().openapi({ description: "The participant of that name; null when none or several have it" }),
	})
	.openapi("SpeakerTalkTime");

/** One line of the meeting chat as the bot saw it (docs/api.md#meeting-chat). */
export const ChatMessage = z
	.object({ sender: z.string(), text: z.string(), timestamp: z.number(), is_from_bot: z.boolean() })
	.openapi("ChatMessage");

export const MeetingChat = z.object({ messages: z.array(ChatMessage), meeting_id: z.number().int() }).openapi("ChatMessagesResponse");

/** One transcript segment (meetings/transcript-store.ts segmentView): the stored segment as REST answers it. */
export const TranscriptSegment = SegmentRecord.extend({}).openapi("TranscriptionSegment");

export const Transcript = z
	.object({
		id: z.number().int(),
		platform: z.string(),
		native_meeting_id: z.string().nullable(),
		constructed_meeting_url: z.string().nullable(),
		status: z.string().openapi(statusDoc),
		start_time: z.string().nullable(),
		end_time: z.string().nullable(),
		recordings: z.array(Recording),
		notes: z.string().nullable(),
		completion_reason: z.string().nullable(),
		participants: z.array(MeetingParticipant).openapi({ description: "Who was there, with their stays and talk time" }),
		segments: z.array(TranscriptSegment),
	})
	.openapi("TranscriptionResponse");

/** What an erased Durable Object held: its storage keys, and rows per table. */
const ObjectStorageCount = z.object({ keys: z.number().int(), rows: z.record(z.string(), z.number().int()) });

/** The receipt of an ended meeting's deletion (docs/retention.md#deleting-a-meeting): what went, store by store. */
export const MeetingDeletionReceipt = z
	.object({
		status: z.enum(["deleted", "incomplete"]),
		meeting_id: z.number().int(),
		removed: z.object({
			database: z.record(z.string(), z.number().int()).openapi({ description: "D1 rows per table" }),
			objects: z
				.object({ recordings: z.number().int(), screenshots: z.number().int(), transcript_cache: z.number().int() })
				.partial()
				.openapi({ description: "R2 objects per kind" }),
			meeting_room: ObjectStorageCount.nullable(),
			meeting_stream: ObjectStorageCount.nullable(),
			search_index: z.object({ rows: z.number().int() }).nullable(),
			webhook_outbox: z.object({ events: z.number().int() }).nullable(),
		}),
		failed: z.array(z.string()).openapi({ description: "Stores that refused this time: DELETE again to finish" }),
		pending: z.array(z.string()).openapi({ description: "Stores whose part finishes on its own within a minute" }),
	})
	.openapi("MeetingDeletionReceipt");
