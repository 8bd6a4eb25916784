import { z } from "@hono/zod-openapi";
import { readChat, sendChat, speak } from "../bots/bot-actions";
import { botStatuses, stopBot } from "../bots/bot-control";
import { accountCap } from "../bots/launch";
import { SendBotRequest, sendBot } from "../bots/send-bot";
import { VOICES } from "../bots/speech-provider";
import { MeetingLinkParams } from "../meetings/meeting-link-params";
import { clip, defineTool, newestWithin } from "./tool-definition";

/**
 * The bot tools: the services POST /bots, GET /bots/status, DELETE /bots/... and the interactive
 * routes use, with the routes' own schemas. Chat messages and bot failure details come from
 * other people or platforms: they reach the model as values inside the JSON result, never as
 * instructions, and taint the turn; the tools that act in meetings are `outward`, held for the
 * user's confirmation in a tainted turn (src/agent/taint.ts).
 */

const BOT_SCOPES = ["bot"] as const;
/** The meeting chat goes back to the model as at most this many of its newest messages and characters. */
export const MAX_CHAT_MESSAGES = 200;
export const MAX_CHAT_CHARS = 20_000;

const linkName = (l: { platform: string; native_meeting_id: string }) => `${l.platform}/${l.native_meeting_id}`;

const listBotsTool = defineTool({
	name: "list_bots",
	description: "List the user's running bots, then those that failed in the last 10 minutes with why.",
	args: z.object({}),
	writes: false,
	scopes: BOT_SCOPES,
	async run(env, user) {
		const bots = await botStatuses(env, user);
		const failed = bots.filter((b) => b.status === "failed").length;
		const running = bots.length - failed;
		return {
			result: { running_bots: bots },
			summary: failed ? `${running} bots running, ${failed} failed` : `${running} bots running`,
			// Titles, failure details and diagnostics carry what meetings and platforms showed.
			foreign: true,
		};
	},
});

const sendBotTool = defineTool({
	name: "send_bot",
	description:
		"Send a bot to a meeting: platform (google_meet, zoom, teams) and native_meeting_id, or a meeting_url; optional " +
		"bot_name, language, task, passcode and the recording/transcription switches. Fails if a bot is already active there.",
	args: SendBotRequest,
	writes: true,
	outward: true,
	scopes: BOT_SCOPES,
	async run(env, user, args) {
		// A routine runs without a request, so the cap is read now rather than taken from a key lookup.
		const meeting = await sendBot(env, { userId: user.userId, maxConcurrent: await accountCap(env, user.userId) }, args);
		return { result: { meeting }, summary: clip(`sent a bot to ${meeting.platform}/${meeting.native_meeting_id}`) };
	},
});

const stopBotTool = defineTool({
	name: "stop_bot",
	description: "Stop the user's live bot in a meeting (platform + native_meeting_id); the meeting ends as completed.",
	args: MeetingLinkParams,
	writes: true,
	outward: true,
	scopes: BOT_SCOPES,
	async run(env, user, args) {
		const row = await stopBot(env, user, args);
		return { result: { stopping: true, meeting_id: row.id }, summary: clip(`stopping the bot in ${linkName(args)}`) };
	},
});

const speakTool = defineTool({
	name: "speak",
	description: "Have the live bot say a text aloud in the meeting (platform + native_meeting_id, text, optional voice).",
	args: MeetingLinkParams.extend({ text: z.string(), voice: z.enum(VOICES).optional() }),
	writes: true,
	outward: true,
	scopes: BOT_SCOPES,
	async run(env, user, { text, voice, ...link }) {
		const ack = await speak(env, user, link, { text, voice });
		return { result: ack, summary: clip(`spoke in ${linkName(link)}`) };
	},
});

const sendChatTool = defineTool({
	name: "send_chat",
	description: "Post a message in the meeting chat through the live bot (platform + native_meeting_id, text).",
	args: MeetingLinkParams.extend({ text: z.string() }),
	writes: true,
	outward: true,
	scopes: BOT_SCOPES,
	async run(env, user, { text, ...link }) {
		const ack = await sendChat(env, user, link, { text });
		return { result: ack, summary: clip(`sent a chat message in ${linkName(link)}`) };
	},
});

const readChatTool = defineTool({
	name: "read_chat",
	description: `Read the meeting chat as the bot saw it, live or ended (platform + native_meeting_id; the newest meeting on the link); the newest ${MAX_CHAT_MESSAGES} messages at most.`,
	args: MeetingLinkParams,
	writes: false,
	scopes: BOT_SCOPES,
	async run(env, user, args) {
		const chat = await readChat(env, user, args);
		const { kept, omitted } = newestWithin(chat.messages, MAX_CHAT_MESSAGES, MAX_CHAT_CHARS);
		return {
			result: { meeting_id: chat.meeting_id, messages: kept, truncated: omitted > 0, ...(omitted ? { omitted_messages: omitted } : {}) },
			summary: `chat: ${kept.length} messages`,
			foreign: true,
		};
	},
});

export const BOT_TOOLS = [listBotsTool, sendBotTool, stopBotTool, speakTool, sendChatTool, readChatTool];
