import { z } from "@hono/zod-openapi";
import { FailureCause, FailureStage, JoinStep } from "../bot-channel/protocol";
import { MeetingSummary } from "../meetings/meeting-summary";
import { MEETING_STATUSES } from "../meetings/status-machine";
import { HelpEpisode, MeetingDiagnostics, MeetingHelp } from "./help-schemas";
import { Recording } from "./recording-schemas";

/**
 * The meeting record and what is built from it, as the routes answer them (docs/api.md#the-meeting-record):
 * MeetingResponse, BotStatusResponse and TranscriptionResponse, plus this service's planning
 * fields. Handlers' bodies are type-checked against these, so the document follows the code.
 */

const statusDoc = { description: `One of ${MEETING_STATUSES.map((s) => `\`${s}\``).join(", ")}` };

/** `data.placement` (src/live/frames.ts MeetingPlacement): what a meeting waiting for a bot host waits on. */
export const MeetingPlacement = z
	.object({
		since: z.string().openapi({ description: "When the current attempt began waiting (POST /bots, auto-join, or a respawn)" }),
		deadline: z
			.string()
			.openapi({ description: "When the meeting fails `no_bot_capacity` (an auto-join goes back to its plan) unless a host claims it" }),
		attempt: z.number().int(),
		reason: z.enum(["no_host_reported", "all_hosts_busy", "not_yet_pulled"]),
		detail: z.string().openapi({
			description: 'The reason in generic words, e.g. "all bot hosts are busy"; never a host\'s name, load or words',
		}),
		hosts_reporting: z.number().int().openapi({ description: "How many bot hosts reported in the last 60 s" }),
	})
	.openapi("MeetingPlacement", {
		description: "While the meeting waits for a bot host: since when, until when, and why (docs/api.md#waiting-for-a-bot-host)",
	});

/** `data`: free metadata, plus the status keys the lifecycle writes. */
export const MeetingData = z
	.object({
		completion_reason: z.string().nullable().optional().openapi({ description: "Why the meeting ended (also hoisted to the record)" }),
		failure_stage: FailureStage.nullable().optional(),
		failure_detail: z.string().nullable().optional().openapi({ description: "What went wrong, when the meeting failed" }),
		failure_cause: FailureCause.optional().openapi({
			description:
				"When the bot fleet, not the meeting, ended a failed meeting: no host claimed it, its host was lost, or its host shut down",
		}),
		join_step: JoinStep.optional().openapi({
			description:
				"The step of its join the bot last reported, with a help request or a failure: where a failed join stopped (docs/bot-fleet.md#join-health)",
		}),
		title: z.string().optional(),
		notes: z.string().optional(),
		scheduled_at: z.string().optional(),
		calendar_sources: z
			.array(z.object({ id: z.string(), name: z.string(), auto_join: z.boolean(), bot_name: z.string() }))
			.optional()
			.openapi({ description: "The calendar connections whose events plan this meeting" }),
		auto_join_error: z
			.string()
			.optional()
			.openapi({ description: "Why auto-join could not start the plan's bot; set while the plan is still scheduled" }),
		help: MeetingHelp.optional(),
		help_history: z.array(HelpEpisode).optional().openapi({ description: "The meeting's last finished help requests, oldest first" }),
		diagnostics: MeetingDiagnostics.optional(),
		placement: MeetingPlacement.optional(),
		summary: MeetingSummary.optional().openapi({
			description: "A completed meeting's summary, decisions and action items (docs/api.md#summaries)",
		}),
	})
	.catchall(z.unknown())
	.openapi({ description: "Meeting metadata (title, notes, languages, status reasons, calendar sources); open to other keys" });

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
				completion_reason: z.string().nullable(),
				failure_stage: z.string().nullable(),
				failure_detail: z.string().optional(),
				failure_cause: FailureCause.optional(),
				diagnostics: MeetingDiagnostics.optional(),
				help: MeetingHelp.optional(),
				placement: MeetingPlacement.optional(),
			})
			.optional()
			.openapi({
				description:
					"On a failed bot: why it failed (and what it saw last); on a bot waiting for a host: what it waits on (`placement`); on a bot that needs help: what it is stuck on",
			}),
	})
	.openapi("BotStatus");

export const BotStatusList = z.object({ running_bots: z.array(RunningBot) }).openapi("BotStatusResponse");

/** One transcript segment (meetings/transcript-store.ts segmentView). */
export const TranscriptSegment = z
	.object({
		segment_id: z.string(),
		speaker: z.string().nullable(),
		speaker_source: z.string(),
		text: z.string(),
		start: z.number(),
		end: z.number(),
		start_time: z.number(),
		end_time: z.number(),
		language: z.string().nullable(),
		completed: z.boolean(),
		confidence: z.number().nullable(),
		words: z.array(z.unknown()),
		created_at: z.string(),
		absolute_start_time: z.string().nullable(),
		absolute_end_time: z.string().nullable(),
	})
	.openapi("TranscriptionSegment");

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
		segments: z.array(TranscriptSegment),
	})
	.openapi("TranscriptionResponse");
