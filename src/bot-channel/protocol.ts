/**
 * The bot channel: one WebSocket per live meeting between the bot host and that meeting's
 * MeetingRoom Durable Object, plus the spawn request a bot host gets for a claimed attempt.
 * Both sides import these schemas, so the wire shape is written down once.
 *
 * Delivery: every bot→room message carries a per-meeting `seq` (1, 2, 3 …). The room answers
 * `{type:"ack", seq}` once the message is durable; on reconnect the bot sends `hello` with the
 * last seq it saw acked and re-sends everything after it. The room applies only the next seq
 * (last applied + 1): an older one was already applied and is only acked again, so a resend
 * never duplicates anything, and a later one waits for the bot to resend what came before it,
 * so nothing is skipped.
 *
 * A room that has ended its meeting refuses the channel upgrade with 409, or closes
 * it with `ROOM_CLOSE.meetingEnded`: the bot then leaves the call and does not reconnect.
 */
import { z } from "zod";
import { PLATFORMS } from "../platforms/ids.ts";
import { PRESENTATIONS } from "../platforms/share-facts.ts";
import { BotReportedStatus, CompletionCause, CompletionReason, FailureCause, FailureStage, JoinStep } from "../shapes/bot-status.ts";
import { Segment } from "../shapes/segment.ts";
import { TranscriptionEngine } from "../shapes/transcription.ts";
import { FailureDiagnostics, HelpReport } from "./help-report.ts";
import { RecordingPlan } from "./recording-protocol.ts";

export {
	BotReportedStatus,
	CompletionCause,
	CompletionReason,
	FailureCause,
	FailureStage,
	JOIN_STEPS,
	JoinStep,
} from "../shapes/bot-status.ts";
export { SEGMENT_TEXT_MAX, SpeakerSource, Word } from "../shapes/segment.ts";
// The recording's part of the wire, in a file of its own; its names are this module's too.
export * from "./recording-protocol.ts";

/** WebSocket close codes the room sends on the bot channel. */
export const ROOM_CLOSE = {
	/** A newer connection of the same bot took over. */
	replaced: 4000,
	/** This bot's attempt was superseded (a respawn took over, or its claim is gone): leave, do not reconnect. */
	superseded: 4409,
	/** The meeting is over: leave the call, do not reconnect. */
	meetingEnded: 4410,
	/** A message could not be made durable, or arrived out of order: reconnect and resend from the last ack. */
	resend: 1011,
} as const;

/**
 * The channel's keepalive (docs/bot-channel.md#keepalive): the bot sends exactly this text every
 * `CHANNEL_PING_S`, the runtime answers `CHANNEL_PONG` for the room without waking it, and the
 * room's lease reads when it last did. Outside the seq numbering: nothing to ack or resend.
 */
export const CHANNEL_PING = '{"type":"ping"}';
export const CHANNEL_PONG = '{"type":"pong"}';
export const CHANNEL_PING_S = 5;

/**
 * The largest recording file (WAV, header included) the Worker takes by default
 * (`MAX_RECORDING_BYTES`). A bot host caps each bot's recording at it unless told less
 * (`BOT_RECORDING_MAX_BYTES`, and the spawn's `recording_max_bytes`), so a recording is never
 * longer than the upload would take: about 9.3 hours of the bot's 16 kHz mono audio.
 */
export const RECORDING_MAX_BYTES = 1_073_741_824;

/** Why a bot stopped recording while it stayed in the meeting: its file reached the cap. */
export const RecordingStopReason = z.enum(["size_limit"]);
export type RecordingStopReason = z.infer<typeof RecordingStopReason>;

/** Commands the room keeps for a bot that is away; past this, new ones are refused (409). */
export const MAX_QUEUED_COMMANDS = 50;
/**
 * Their size together, as JSON (audio rides along as base64); past this, new ones are refused
 * (409). Above the speak route's 16 MiB body cap, so any command it takes can wait for the bot.
 */
export const MAX_QUEUED_COMMAND_BYTES = 24 * 1024 * 1024;

export { PLATFORMS } from "../platforms/ids.ts";
export const Platform = z.enum(PLATFORMS);
export type Platform = z.infer<typeof Platform>;

/**
 * Reasons bot hosts of earlier releases still send on the channel (a host draining during an
 * upgrade does), read as what this release reports instead: the same ending in the enum's words.
 */
export const LEGACY_BOT_REASONS = {
	rejected: { completion_reason: "awaiting_admission_rejected" },
	meeting_ended: { completion_reason: "left_alone", completion_cause: "ended_by_host" },
	host_drained: { failure_cause: "host_drained" },
} as const satisfies Record<
	string,
	{ completion_reason: CompletionReason; completion_cause?: CompletionCause } | { failure_cause: FailureCause }
>;
const LegacyBotReason = z.enum(Object.keys(LEGACY_BOT_REASONS) as [keyof typeof LEGACY_BOT_REASONS]);

/**
 * The ending table: how each reason ends a meeting. The bot reports by it and the room records
 * by it, so both sides of the channel agree. `completed`: the bot did what it was sent for and
 * the meeting (or the user) ended it. `failed`: the bot never got in or could not stay in.
 * - evicted is `failed`: a host removing the bot means the transcript is cut short against the
 *   user's wish, and the user should hear about it (bot.failed), even though it is not retryable.
 * - startup_alone and left_alone are `completed`: the bot was in and nobody was (left) to record;
 *   a host ending the meeting for everyone leaves the bot alone too.
 * - max_bot_time_exceeded is `completed`: a limit the user configured ended a working session.
 */
export const REASON_OUTCOME = {
	stopped: "completed",
	left_alone: "completed",
	startup_alone: "completed",
	max_bot_time_exceeded: "completed",
	evicted: "failed",
	awaiting_admission_timeout: "failed",
	awaiting_admission_rejected: "failed",
	join_failure: "failed",
	validation_error: "failed",
} as const satisfies Record<CompletionReason, "completed" | "failed">;

/** Reasons worth trying again with a new bot (docs/status-machine.md#how-a-meeting-ends). */
export const RETRYABLE_REASONS: ReadonlySet<CompletionReason> = new Set(["join_failure", "awaiting_admission_timeout"]);

/** Longest chat sender and text the room takes; the bot shortens longer ones before sending. */
export const CHAT_SENDER_MAX = 256;
export const CHAT_TEXT_MAX = 4_000;

/** A segment as the bot sends it: the service stamps `created_at` when it first stores it. */
export const BotSegment = Segment.omit({ created_at: true });
export type BotSegment = z.infer<typeof BotSegment>;

export const ChatMessage = z.object({
	sender: z.string().max(CHAT_SENDER_MAX),
	text: z.string().max(CHAT_TEXT_MAX),
	timestamp: z.number(),
	is_from_bot: z.boolean(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const InteractiveEventName = z.enum([
	"speak.started",
	"speak.completed",
	"speak.interrupted",
	"chat.sent",
	"screen.sharing_started",
	"screen.sharing_stopped",
	"avatar.set",
	"avatar.reset",
]);

/** Longest `reason` of a status message: a sentence and the error text that caused it. */
export const STATUS_REASON_MAX = 2000;

/**
 * A reason's links as they may be shown: scheme, host and path only, since a meeting link can
 * carry its passcode (`pwd=`, `p=`) or credentials. Both ends of the channel apply it.
 */
export function linksWithoutSecrets(text: string): string {
	return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (link) => {
		try {
			const url = new URL(link);
			return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
		} catch {
			return "[link]";
		}
	});
}

const sequenced = { seq: z.number().int().positive() };

export const BotToRoom = z.discriminatedUnion("type", [
	z.object({ type: z.literal("hello"), last_acked_seq: z.number().int().nonnegative() }),
	z.object({
		...sequenced,
		type: z.literal("status"),
		status: BotReportedStatus,
		/** A legacy reason is read through `botEnding` (LEGACY_BOT_REASONS). */
		completion_reason: z.union([CompletionReason, LegacyBotReason]).optional(),
		/** Set by a bot whose host shut it down (`host_drained`): the room ends it as a teardown. */
		failure_cause: FailureCause.optional(),
		/** With `completed`: what ended it where the reason cannot say (the host ended it: `left_alone`), kept in `data.completion_cause`. */
		completion_cause: CompletionCause.optional(),
		failure_stage: FailureStage.optional(),
		/** With `needs_help` and `failed`: the step of the join the bot is on (kept in `data.join_step`). */
		join_step: JoinStep.optional(),
		reason: z.string().max(STATUS_REASON_MAX).optional(),
		/** With `needs_help`: what the bot is stuck on. */
		help: HelpReport.optional(),
		/** With `failed`: the last screenshot and the driver's last steps. */
		diagnostics: FailureDiagnostics.optional(),
		timestamp: z.string(),
	}),
	z.object({ ...sequenced, type: z.literal("segment"), segment: BotSegment }),
	z.object({ ...sequenced, type: z.literal("chat"), message: ChatMessage }),
	z.object({
		...sequenced,
		type: z.literal("participant"),
		event: z.enum(["join", "leave"]),
		participant: z.object({ id: z.string(), name: z.string() }),
		timestamp: z.string(),
	}),
	z.object({
		...sequenced,
		type: z.literal("event"),
		name: InteractiveEventName,
		payload: z.record(z.string(), z.unknown()).default({}),
	}),
	/** The bot stopped recording (it stays in the call and keeps transcribing); `bytes`: the file it will upload. */
	z.object({
		...sequenced,
		type: z.literal("recording"),
		state: z.literal("stopped"),
		reason: RecordingStopReason,
		bytes: z.number().int().nonnegative(),
		timestamp: z.iso.datetime({ offset: true }),
	}),
	/** The engine the spawn names could not start on this bot (no speech service on its host): it transcribes from captions. */
	z.object({
		...sequenced,
		type: z.literal("transcription"),
		state: z.literal("fallback"),
		engine: TranscriptionEngine,
		reason: z.string().max(STATUS_REASON_MAX),
		timestamp: z.iso.datetime({ offset: true }),
	}),
]);
export type BotToRoom = z.infer<typeof BotToRoom>;

/** A status message's ending in this release's words: a legacy reason becomes its reason or cause. */
export function botEnding(message: Extract<BotToRoom, { type: "status" }>): {
	completion_reason?: CompletionReason;
	completion_cause?: CompletionCause;
	failure_cause?: FailureCause;
} {
	const reason = message.completion_reason;
	const legacy = reason && reason in LEGACY_BOT_REASONS ? LEGACY_BOT_REASONS[reason as keyof typeof LEGACY_BOT_REASONS] : null;
	const { completion_cause, failure_cause } = message;
	if (!legacy) return { completion_reason: reason as CompletionReason | undefined, completion_cause, failure_cause };
	return "failure_cause" in legacy ? { failure_cause: legacy.failure_cause } : { ...legacy, failure_cause };
}

/** Commands the room relays to the bot (docs/bot-channel.md#commands). */
export const ScreenContentType = z.enum(["image", "url", "video", "html"]);

export const Act = z.discriminatedUnion("action", [
	z.object({ action: z.literal("leave") }),
	z.object({
		action: z.literal("reconfigure"),
		language: z.string().nullable().optional(),
		task: z.enum(["transcribe", "translate"]).nullable().optional(),
	}),
	z.object({ action: z.literal("speak"), text: z.string(), voice: z.string().optional(), provider: z.string().optional() }),
	/** `text` and `provider`: set when the gateway synthesized the audio from a text, so speak.started can carry them. */
	z.object({
		action: z.literal("speak_audio"),
		url: z.string().optional(),
		audioBase64: z.string().optional(),
		text: z.string().optional(),
		provider: z.string().optional(),
	}),
	z.object({ action: z.literal("speak_stop") }),
	z.object({ action: z.literal("chat_send"), text: z.string() }),
	/** `start: false` (start_share false): load the content and keep it off camera until `screen_start`. */
	z.object({
		action: z.literal("screen_show"),
		content_type: ScreenContentType,
		url: z.string().optional(),
		html: z.string().optional(),
		start: z.boolean().optional(),
	}),
	/** Puts the content loaded with `start: false` on camera. */
	z.object({ action: z.literal("screen_start") }),
	z.object({ action: z.literal("screen_stop") }),
	z.object({ action: z.literal("avatar_set"), url: z.string().optional(), image_base64: z.string().optional() }),
	z.object({ action: z.literal("avatar_reset") }),
]);
export type Act = z.infer<typeof Act>;

export const RoomToBot = z.discriminatedUnion("type", [
	z.object({ type: z.literal("ack"), seq: z.number().int().nonnegative() }),
	z.object({ type: z.literal("command"), id: z.string(), act: Act }),
]);
export type RoomToBot = z.infer<typeof RoomToBot>;

const HOUR_MS = 60 * 60_000;

/**
 * Upper bounds of the `automatic_leave` timeouts (ms). A bot holds a Chromium and its
 * recording for as long as these allow, on a host shared with other accounts' bots.
 */
export const AUTOMATIC_LEAVE_MAX_MS = {
	max_wait_for_admission: HOUR_MS,
	max_wait_for_host: HOUR_MS,
	max_time_left_alone: 4 * HOUR_MS,
	no_one_joined_timeout: 4 * HOUR_MS,
	max_bot_time: 24 * HOUR_MS,
	silence_timeout: 4 * HOUR_MS,
} as const;

const timeout = (max: number, label: string) =>
	z
		.number()
		.int()
		.positive()
		.max(max, { message: `at most ${max} ms (${label})` })
		.nullable()
		.optional();

/** Timeouts in milliseconds, as in `automatic_leave` of POST /bots (docs/api.md#limits). */
export const AutomaticLeave = z.object({
	max_wait_for_admission: timeout(AUTOMATIC_LEAVE_MAX_MS.max_wait_for_admission, "1 hour"),
	/** How long the bot waits for a host who has not started the meeting (Zoom's 3,001 page) before it gives up. */
	max_wait_for_host: timeout(AUTOMATIC_LEAVE_MAX_MS.max_wait_for_host, "1 hour"),
	max_time_left_alone: timeout(AUTOMATIC_LEAVE_MAX_MS.max_time_left_alone, "4 hours"),
	no_one_joined_timeout: timeout(AUTOMATIC_LEAVE_MAX_MS.no_one_joined_timeout, "4 hours"),
	max_bot_time: timeout(AUTOMATIC_LEAVE_MAX_MS.max_bot_time, "24 hours"),
	silence_timeout: timeout(AUTOMATIC_LEAVE_MAX_MS.silence_timeout, "4 hours"),
});
export type AutomaticLeave = z.infer<typeof AutomaticLeave>;

/** What a bot host gets for a won claim (`POST /internal/bot-hosts/claims`, docs/bot-fleet.md). */
export const SpawnRequest = z.object({
	meeting_id: z.number().int(),
	/** The claimed attempt; the channel token is bound to it, so a superseded bot is refused. */
	attempt: z.number().int().positive().default(1),
	platform: Platform,
	native_meeting_id: z.string(),
	meeting_url: z.string(),
	passcode: z.string().nullable().optional(),
	bot_name: z.string(),
	language: z.string().nullable().optional(),
	task: z.enum(["transcribe", "translate"]).default("transcribe"),
	recording_enabled: z.boolean().default(false),
	transcribe_enabled: z.boolean().default(true),
	voice_agent_enabled: z.boolean().default(true),
	automatic_leave: AutomaticLeave.default({}),
	/**
	 * An OpenAI-compatible transcription endpoint (`transcriptionEndpoint(url)`) and the Bearer
	 * token for it; null means captions are the transcript source. The Worker gives its own relay
	 * with the bot's channel token: the account's endpoint and token stay in the Worker.
	 */
	transcription: z.object({ url: z.string(), token: z.string().nullable() }).nullable(),
	/**
	 * The engine the bot transcribes with (docs/api.md#transcription-engines); a spawn of an earlier
	 * release has none: its `transcription` says endpoint or captions, as it always did.
	 */
	engine: TranscriptionEngine.optional(),
	/**
	 * Words and names the meeting is likely to hear (docs/api.md#vocabulary): the bot's, the
	 * account's and its calendar event's, merged. The engine's hint, and the spellings captions
	 * are corrected to. Absent from an older Worker: none.
	 */
	vocabulary: z.array(z.string()).default([]),
	/**
	 * For `deepgram` and `assemblyai`: the Worker's WebSocket relay (docs/bot-channel.md#streaming-transcription)
	 * and the channel token for it. The bot speaks the provider's own streaming protocol through it; the
	 * Worker adds the provider's key, which never reaches the bot host.
	 */
	transcription_stream: z.object({ url: z.string(), token: z.string() }).nullable().default(null),
	/** Where the bot connects its channel: a ws(s) URL and the per-meeting token. */
	channel: z.object({ url: z.string(), token: z.string() }),
	/**
	 * What the recording holds when `recording_enabled` (docs/api.md#recording-config); absent
	 * means a compressed audio file only. `audio_format: "wav"` is the finished WAV PUT to
	 * `recording_upload_url`; otherwise the files are streamed in parts to `recording_parts_url`.
	 */
	recording: RecordingPlan.optional(),
	/** Where the finished recording is uploaded (PUT, WAV body), same token. */
	recording_upload_url: z.string().optional(),
	/**
	 * Where the recording's files are streamed while the meeting runs (docs/bot-channel.md#recording-parts),
	 * same token: `PUT <url>/<audio|video>/<n>` for part n (1, 2, …) of that file, a re-PUT
	 * replacing it; `POST <url>/complete` with `RecordingCompletion` when the bot is done.
	 */
	recording_parts_url: z.string().optional(),
	/** The largest file that upload takes (`MAX_RECORDING_BYTES`): the bot stops recording before it. */
	recording_max_bytes: z.number().int().positive().optional(),
	/**
	 * Where screenshots go (help requests, failures): PUT `<url>/<ScreenshotName>`, an
	 * `image/jpeg` or `image/png` body of at most SCREENSHOT_MAX_BYTES, same token; 201 on success.
	 */
	screenshot_upload_url: z.string().optional(),
});
export type SpawnRequest = z.infer<typeof SpawnRequest>;

/** A transcription URL as configured, a base (`…`, `…/v1`) or the full endpoint, made the full endpoint. */
export function transcriptionEndpoint(url: string): string {
	const trimmed = url.replace(/\/+$/, "");
	if (trimmed.endsWith("/audio/transcriptions")) return trimmed;
	if (trimmed.endsWith("/v1")) return `${trimmed}/audio/transcriptions`;
	return `${trimmed}/v1/audio/transcriptions`;
}

/**
 * The payload of `screen.sharing_started` and `screen.sharing_stopped`: what was shown, and how
 * the meeting got it, as the platform's own screen share or on the bot's camera (the fallback
 * where the platform does not let the bot share). The room relays it to /ws as it is.
 */
export const ScreenEventPayload = z.object({ content_type: ScreenContentType, presented_as: z.enum(PRESENTATIONS) });
export type ScreenEventPayload = z.infer<typeof ScreenEventPayload>;
