/**
 * `meetings.data`, declared once: a meeting's free metadata plus the keys the lifecycle, the
 * calendar, help, placement and the summary write. Drizzle types the column with it
 * (src/db/schema.ts), and REST shows it (src/routes/meeting-schemas.ts) with screenshot links
 * added to `help` and `diagnostics`. Open to other keys. Imports only zod.
 */
import { z } from "zod";
import { CompletionCause, FailureCause, FailureStage, JoinStep } from "./bot-status.ts";
import { Diagnostics, Help, HelpEpisode } from "./help.ts";
import { Placement } from "./placement.ts";
import { Summary } from "./summary.ts";
import { TranscriptionEngine, TranscriptionFallback } from "./transcription.ts";

export const CalendarSource = z.object({ id: z.string(), name: z.string(), auto_join: z.boolean(), bot_name: z.string() });

export const MeetingData = z
	.object({
		completion_reason: z.string().nullable().optional().describe("Why the meeting ended (also hoisted to the record)"),
		completion_cause: CompletionCause.optional().describe(
			"What ended a completed meeting where its reason cannot say it: `ended_by_host` (the host ended it for everyone; reason `left_alone`)",
		),
		failure_stage: FailureStage.nullable().optional(),
		failure_detail: z.string().nullable().optional().describe("What went wrong, when the meeting failed"),
		failure_cause: FailureCause.optional().describe(
			"When the bot fleet, not the meeting, ended a failed meeting: no host claimed it, its host was lost, or its host shut down",
		),
		join_step: JoinStep.optional().describe(
			"The step of its join the bot last reported, with a help request or a failure: where a failed join stopped (docs/bot-fleet.md#join-health)",
		),
		title: z.string().optional(),
		notes: z.string().optional(),
		scheduled_at: z.string().optional(),
		calendar_sources: z.array(CalendarSource).optional().describe("The calendar connections whose events plan this meeting"),
		auto_join_error: z.string().optional().describe("Why auto-join could not start the plan's bot; set while the plan is still scheduled"),
		help: Help.optional(),
		help_history: z.array(HelpEpisode).optional().describe("The meeting's last finished help requests, oldest first"),
		diagnostics: Diagnostics.optional(),
		placement: Placement.optional(),
		transcription_engine: TranscriptionEngine.optional().describe(
			"What the meeting's bot was launched to transcribe with (docs/api.md#transcription-engines); absent when it does not transcribe",
		),
		transcription_fallback: TranscriptionFallback.optional().describe(
			"Set when `transcription_engine` could not start on the bot: the transcript comes from the platform's captions instead",
		),
		summary: Summary.optional().describe("A completed meeting's summary, decisions and action items (docs/api.md#summaries)"),
	})
	.catchall(z.unknown());
export type MeetingData = z.infer<typeof MeetingData>;
