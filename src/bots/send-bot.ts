import { z } from "@hono/zod-openapi";
import { AutomaticLeave, Platform } from "../bot-channel/protocol";
import type { Env } from "../env";
import { invalidField } from "../errors";
import { constructMeetingUrl, parseMeetingLink } from "../meetings/meeting-link";
import { meetingView } from "../meetings/meeting-store";
import { meetingRoom } from "../objects";
import { NativeMeetingId } from "../routes/meeting-link-params";
import { launchBot } from "./launch";

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
	transcribe_enabled: z.boolean().nullable().optional(),
	automatic_leave: AutomaticLeave.nullable().optional(),
});
export type SendBotRequest = z.infer<typeof SendBotRequest>;

/** Who sends the bot: the account, and its cap on concurrent bots as known at this moment. */
export interface BotSender {
	userId: number;
	maxConcurrent: number;
}

/**
 * Sends a bot to a meeting (POST /bots): the link from the id or the URL, then the launch.
 * Throws the ApiError the route answers with (422 bad link, 409 already active, 429 the cap).
 */
export async function sendBot(env: Env, sender: BotSender, body: SendBotRequest) {
	let nativeId = body.native_meeting_id ?? null;
	let passcode = body.passcode ?? null;
	if (!nativeId && body.meeting_url) {
		const parsed = parseMeetingLink(body.meeting_url);
		if (!parsed || parsed.platform !== body.platform) throw invalidField(["body", "meeting_url"], `Not a ${body.platform} meeting link`);
		nativeId = parsed.native_meeting_id;
		passcode ??= parsed.passcode ?? null;
	}
	if (!nativeId) throw invalidField(["body", "native_meeting_id"], "native_meeting_id (or meeting_url) is required");
	const meetingUrl = constructMeetingUrl(body.platform, nativeId, passcode);
	if (!meetingUrl) throw invalidField(["body", "native_meeting_id"], `Not a valid ${body.platform} meeting id`);
	const { start } = await launchBot(
		env,
		{ userId: sender.userId, maxConcurrent: sender.maxConcurrent, platform: body.platform, nativeMeetingId: nativeId, meetingUrl },
		{ ...body, passcode },
		"user",
		(s) => meetingRoom(env, s.meeting.id).start(s),
	);
	return meetingView(start.meeting);
}
