import { z } from "@hono/zod-openapi";
import { AutomaticLeave, Platform } from "../bot-channel/protocol";
import type { Env } from "../env";
import { invalidField } from "../errors";
import { constructMeetingUrl, parseMeetingLink } from "../meetings/meeting-link";
import { NativeMeetingId } from "../meetings/meeting-link-params";
import { meetingView } from "../meetings/meeting-store";
import { meetingRoom } from "../objects";
import { TranscriptionEngine } from "../shapes/transcription";
import { launchBot } from "./launch";
import { RecordingConfig, recordingFieldsOf } from "./recording-config";
import { Vocabulary } from "./vocabulary";

export const LANGUAGE = z.string().regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, "an ISO 639 language code such as 'en' or 'pt-BR'");
export const Task = z.enum(["transcribe", "translate"]);

/** What POST /bots accepts; the agent's send_bot takes the same, so the two cannot drift. */
export const SendBotRequest = z.object({
	platform: Platform,
	native_meeting_id: NativeMeetingId.nullable().optional(),
	meeting_url: z.string().max(2048).nullable().optional(),
	bot_name: z.string().trim().min(1).max(100).nullable().optional(),
	language: LANGUAGE.nullable().optional(),
	task: Task.nullable().optional(),
	passcode: z.string().min(1).max(128).nullable().optional(),
	voice_agent_enabled: z.boolean().nullable().optional(),
	recording_enabled: z.boolean().nullable().optional(),
	recording_config: RecordingConfig.nullable().optional().openapi({
		description: "What the recording holds when recording_enabled (docs/api.md#recording-config): video, resolution, audio_format",
	}),
	transcribe_enabled: z.boolean().nullable().optional(),
	transcription_engine: TranscriptionEngine.nullable().optional().openapi({
		description:
			"What transcribes this bot (docs/api.md#transcription-engines): captions, builtin, openai, deepgram or assemblyai; null: the account's, else the deployment's. 422 when it needs a key or endpoint nobody set",
	}),
	automatic_leave: AutomaticLeave.nullable().optional(),
	vocabulary: Vocabulary.nullable().optional(),
});
export type SendBotRequest = z.infer<typeof SendBotRequest>;

/**
 * The POST /bots body: the same, except that `platform` may be left out when a link is sent (it
 * is read from the link, as the reference does), plus `url`, which the reference's own client
 * sends next to the id and which is read as `meeting_url` when that is absent, and the
 * reference's `video` flag (folded into `recording_config`). The agent's tool keeps the stricter
 * form: a model is better told to name the platform, and `recording_config` says it all.
 */
export const PostBotsBody = SendBotRequest.extend({
	platform: Platform.nullable().optional().openapi({ description: "Required with native_meeting_id; read from meeting_url otherwise" }),
	url: z.string().max(2048).nullable().optional().openapi({ description: "Read as meeting_url when meeting_url is not sent" }),
	video: z.boolean().nullable().optional().openapi({
		description: "As the reference: true records audio and video (and turns recording_enabled on); false records audio only",
	}),
});
export type PostBotsBody = z.infer<typeof PostBotsBody>;

/** Who sends the bot: the account, and its cap on concurrent bots as known at this moment. */
export interface BotSender {
	userId: number;
	maxConcurrent: number;
}

/** The meeting a POST /bots body names: platform and id, or a link they are read from. */
interface BotLink {
	platform: Platform;
	nativeId: string;
	passcode: string | null;
	meetingUrl: string;
}

/**
 * Platform, id and passcode from the body. An explicit `native_meeting_id` wins (as in the
 * reference); without it the link (`meeting_url`, or `url`, which the reference's client sends)
 * gives the platform, id and passcode, and keeps the richest joinable URL (a Teams `context`).
 */
export function botLinkOf(body: PostBotsBody): BotLink {
	const field = body.meeting_url ? "meeting_url" : "url";
	const link = body.meeting_url || body.url || null;
	let platform = body.platform ?? null;
	let nativeId = body.native_meeting_id ?? null;
	let passcode = body.passcode ?? null;
	let parsedUrl: string | null = null;
	if (!nativeId && link) {
		const parsed = parseMeetingLink(link);
		if (!parsed) {
			throw invalidField(
				["body", field],
				platform
					? `Not a ${platform} meeting link`
					: "Not a Google Meet, Zoom or Teams meeting link: send platform and native_meeting_id instead",
			);
		}
		if (platform && parsed.platform !== platform) throw invalidField(["body", field], `Not a ${platform} meeting link`);
		platform = parsed.platform;
		nativeId = parsed.native_meeting_id;
		// A passcode sent on its own replaces the link's, so the URL is then rebuilt with it.
		if (!passcode || passcode === parsed.passcode) parsedUrl = parsed.constructed_meeting_url;
		passcode ??= parsed.passcode ?? null;
	}
	if (!nativeId) throw invalidField(["body", "native_meeting_id"], "native_meeting_id (or meeting_url) is required");
	if (!platform) throw invalidField(["body", "platform"], "platform is required with native_meeting_id (or send meeting_url alone)");
	const meetingUrl = parsedUrl ?? constructMeetingUrl(platform, nativeId, passcode);
	if (!meetingUrl) throw invalidField(["body", "native_meeting_id"], `Not a valid ${platform} meeting id`);
	return { platform, nativeId, passcode, meetingUrl };
}

/**
 * Sends a bot to a meeting (POST /bots): the link from the id or the URL, then the launch.
 * Throws the ApiError the route answers with (422 bad link, 409 already active, 429 the cap).
 */
export async function sendBot(env: Env, sender: BotSender, body: PostBotsBody) {
	const { platform, nativeId, passcode, meetingUrl } = botLinkOf(body);
	// The link fields name the meeting; only the rest are the bot's options, stored with it.
	const { platform: _platform, native_meeting_id: _id, meeting_url: _link, url: _url, video, ...options } = body;
	const recording = recordingFieldsOf({ ...options, video });
	const { start } = await launchBot(
		env,
		{ userId: sender.userId, maxConcurrent: sender.maxConcurrent, platform, nativeMeetingId: nativeId, meetingUrl },
		{ ...options, ...recording, passcode },
		"user",
		(s) => meetingRoom(env, s.meeting.id).start(s),
	);
	return meetingView(start.meeting);
}
