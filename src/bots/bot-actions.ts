import type { Act } from "../bot-channel/protocol";
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { chatOf } from "../meetings/meeting-people";
import { findMeetingOnLink } from "../meetings/meeting-store";
import { isLive, type MeetingStatus } from "../meetings/status-machine";
import { checkOutboundUrl, outboundPolicy } from "../outbound/url-guard";
import { loadSettings, resolveSettings } from "../settings/account-settings";
import { type BotLinkRef, liveMeetingOn, relayToBot } from "./bot-control";
import { AUTO_VOICE, MAX_VOICE_LENGTH, openaiVoice, speechProvider, synthesizeSpeech } from "./speech-provider";

/** The interactive bot actions (docs/api.md#interactive-bot-actions), shared by the REST routes and the agent's tools. */

/** What a command route answers: `{message, meeting_id}` with 202. */
export interface CommandAck {
	message: string;
	meeting_id: number;
}

const invalid = (detail: string) => new ApiError(422, detail);

/** The live meeting on the link, with interactive actions enabled for its bot. */
export async function interactiveMeeting(env: Env, caller: { userId: number }, link: BotLinkRef): Promise<MeetingRow> {
	const row = await liveMeetingOn(env, caller.userId, link.platform, link.native_meeting_id);
	if (row.botOptions.voice_agent_enabled === false) throw actionsDisabled();
	return row;
}

const actionsDisabled = () => new ApiError(403, "Interactive actions are disabled for this bot (voice_agent_enabled is false)");

export async function relayCommand(env: Env, row: MeetingRow, act: Act, message: string): Promise<CommandAck> {
	await relayToBot(env, row, act);
	return { message, meeting_id: row.id };
}

/** An address the bot will fetch: present, and allowed by the outbound guard. */
export function allowedUrl(env: Env, value: unknown, field: string): string {
	if (typeof value !== "string" || !value) throw invalid(`${field} is required`);
	const check = checkOutboundUrl(value, outboundPolicy(env));
	if (!check.ok) throw invalid(`${field} is not allowed: ${check.detail}`);
	return check.url.toString();
}

/**
 * Has the bot speak (POST .../speak): exactly one of text, audio_url, audio_base64. The body is
 * checked here rather than by a schema, so the answers carry the exact documented detail strings.
 */
export async function speak(env: Env, caller: { userId: number }, link: BotLinkRef, b: Record<string, unknown>): Promise<CommandAck> {
	const row = await interactiveMeeting(env, caller, link);
	const given = ["text", "audio_url", "audio_base64"].filter((k) => b[k] !== undefined && b[k] !== null && b[k] !== "");
	if (given.length !== 1) throw invalid("Must provide one of: text, audio_url, or audio_base64");
	// Any name, as the reference takes it: each provider speaks a name it does not have with its default voice.
	const voice = b.voice ?? AUTO_VOICE;
	if (typeof voice !== "string") throw invalid("voice must be a string");
	if (voice.length > MAX_VOICE_LENGTH) throw invalid(`voice must be at most ${MAX_VOICE_LENGTH} characters`);
	if (b.provider !== undefined && b.provider !== null && typeof b.provider !== "string") throw invalid("provider must be a string");
	let act: Act;
	if (typeof b.text === "string" && b.text) {
		if (b.text.length > 4096) throw invalid("text must be at most 4096 characters");
		const provider = speechProvider(env, b.provider);
		if (provider === "openai") {
			const settings = await resolveSettings(env, await loadSettings(env, row.userId));
			// The text rides along so that speak.started can say what is being said.
			const audioBase64 = await synthesizeSpeech(env, settings.models, b.text, openaiVoice(voice));
			act = { action: "speak_audio", audioBase64, text: b.text, provider };
		} else {
			// The bot host speaks text with espeak-ng, and its speak.started says so; it maps the voice (bot-host/bot/tts.ts).
			act = { action: "speak", text: b.text, voice };
		}
	} else if (b.audio_url !== undefined) {
		act = { action: "speak_audio", url: allowedUrl(env, b.audio_url, "audio_url") };
	} else {
		act = { action: "speak_audio", audioBase64: inlineBase64(b.audio_base64, "audio_base64") };
	}
	return relayCommand(env, row, act, "Speak command sent");
}

/**
 * Inline media (`audio_base64`, `image_base64`) checked as base64 and with its line breaks taken
 * out; a copy only when there are any (the body can be 16 MiB).
 */
export function inlineBase64(value: unknown, field: string): string {
	if (typeof value !== "string" || !/^[A-Za-z0-9+/=\s]+$/.test(value)) throw invalid(`${field} must be base64`);
	return /\s/.test(value) ? value.replace(/\s/g, "") : value;
}

/** Posts a message in the meeting chat (POST .../chat). */
export async function sendChat(env: Env, caller: { userId: number }, link: BotLinkRef, b: Record<string, unknown>): Promise<CommandAck> {
	const row = await interactiveMeeting(env, caller, link);
	const { text } = b;
	if (typeof text !== "string" || !text.trim()) throw invalid("text is required");
	if (text.length > 4096) throw invalid("text must be at most 4096 characters");
	return relayCommand(env, row, { action: "chat_send", text }, "Chat message sent");
}

/**
 * The meeting chat as the bot saw it (GET .../chat), oldest first: of the newest started
 * meeting on the link, live or ended, since the chat is kept with the meeting. A live bot
 * started with voice_agent_enabled false is refused as its other actions are.
 */
export async function readChat(env: Env, caller: { userId: number }, link: BotLinkRef) {
	const row = await findMeetingOnLink(env, caller.userId, link.platform, link.native_meeting_id, { ownedOnly: true, started: true });
	if (!row) throw notFound(`No active meeting found for ${link.platform}/${link.native_meeting_id}`);
	if (isLive(row.status as MeetingStatus) && row.botOptions.voice_agent_enabled === false) throw actionsDisabled();
	return { messages: await chatOf(env, row.id), meeting_id: row.id };
}
