import { createRoute, z } from "@hono/zod-openapi";
import { asc, eq } from "drizzle-orm";
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import type { Act } from "../bot-channel/protocol";
import { synthesizeSpeech, VOICES, type Voice } from "../bots/speech-provider";
import { chatMessages, type MeetingRow } from "../db/schema";
import { ApiError } from "../errors";
import { db } from "../meetings/meeting-store";
import { checkOutboundUrl, outboundPolicy } from "../outbound/url-guard";
import { loadSettings, resolveSettings } from "../settings/account-settings";
import { BotLink, liveMeetingOn, relayToBot } from "./bots";
import { jsonResponse, routeModule } from "./openapi-app";

/** The interactive bot actions (docs/api.md#interactive-bot-actions): speak, chat, screen, avatar, relayed to the live bot. */
export const interactiveRoutes = routeModule();

const Ack = z.object({ message: z.string(), meeting_id: z.number().int() });
const ack = (description: string) => ({ 202: jsonResponse(Ack, description) });
/** Bodies are checked in the handlers, which answer with the exact detail strings of docs/api.md#interactive-bot-actions. */
const looseBody = { required: false, content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } };

const invalid = (detail: string) => new ApiError(422, detail);

/** The live meeting on the link, with interactive actions enabled for its bot. */
async function interactiveMeeting(c: Context<AppEnv>): Promise<MeetingRow> {
	const { platform, native_meeting_id } = BotLink.parse(c.req.param());
	const row = await liveMeetingOn(c.env, c.get("identity").userId, platform, native_meeting_id);
	if (row.botOptions.voice_agent_enabled === false)
		throw new ApiError(403, "Interactive actions are disabled for this bot (voice_agent_enabled is false)");
	return row;
}

async function relay(c: Context<AppEnv>, row: MeetingRow, act: Act, message: string) {
	await relayToBot(c.env, row, act);
	return c.json({ message, meeting_id: row.id }, 202);
}

function allowedUrl(c: Context<AppEnv>, value: unknown, field: string): string {
	if (typeof value !== "string" || !value) throw invalid(`${field} is required`);
	const check = checkOutboundUrl(value, outboundPolicy(c.env));
	if (!check.ok) throw invalid(`${field} is not allowed: ${check.detail}`);
	return check.url.toString();
}

/** The JSON body (already parsed and cached by the validator), or {} when none was sent. */
async function body(c: Context<AppEnv>): Promise<Record<string, unknown>> {
	if (!c.req.header("content-type")) return {};
	const value: unknown = await c.req.json().catch(() => null);
	return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

const path = (action: string) => `/bots/{platform}/{native_meeting_id}/${action}`;
const params = { params: BotLink };

interactiveRoutes.openapi(
	createRoute({ method: "post", path: path("speak"), request: { ...params, body: looseBody }, responses: ack("Speech sent to the bot") }),
	async (c) => {
		const row = await interactiveMeeting(c);
		const b = await body(c);
		const given = ["text", "audio_url", "audio_base64"].filter((k) => b[k] !== undefined && b[k] !== null && b[k] !== "");
		if (given.length !== 1) throw invalid("Must provide one of: text, audio_url, or audio_base64");
		const voice = (b.voice ?? "alloy") as Voice;
		if (!VOICES.includes(voice)) throw invalid(`voice must be one of: ${VOICES.join(", ")}`);
		const provider = b.provider ?? c.env.DEFAULT_SPEECH_PROVIDER ?? "espeak";
		if (provider !== "espeak" && provider !== "openai") throw invalid("provider must be one of: espeak, openai");
		let act: Act;
		if (typeof b.text === "string" && b.text) {
			if (b.text.length > 4096) throw invalid("text must be at most 4096 characters");
			if (provider === "openai") {
				const settings = await resolveSettings(c.env, await loadSettings(c.env, row.userId));
				act = { action: "speak_audio", audioBase64: await synthesizeSpeech(c.env, settings.models, b.text, voice) };
			} else {
				act = { action: "speak", text: b.text, voice };
			}
		} else if (b.audio_url !== undefined) {
			act = { action: "speak_audio", url: allowedUrl(c, b.audio_url, "audio_url") };
		} else {
			if (typeof b.audio_base64 !== "string" || !/^[A-Za-z0-9+/=\s]+$/.test(b.audio_base64)) throw invalid("audio_base64 must be base64");
			act = { action: "speak_audio", audioBase64: b.audio_base64.replace(/\s/g, "") };
		}
		return relay(c, row, act, "Speak command sent");
	},
);

interactiveRoutes.openapi(
	createRoute({ method: "delete", path: path("speak"), request: params, responses: ack("Speech stopped") }),
	async (c) => relay(c, await interactiveMeeting(c), { action: "speak_stop" }, "Speak stop command sent"),
);

interactiveRoutes.openapi(
	createRoute({
		method: "post",
		path: path("chat"),
		request: { ...params, body: looseBody },
		responses: ack("Message sent to the meeting chat"),
	}),
	async (c) => {
		const row = await interactiveMeeting(c);
		const { text } = await body(c);
		if (typeof text !== "string" || !text.trim()) throw invalid("text is required");
		if (text.length > 4096) throw invalid("text must be at most 4096 characters");
		return relay(c, row, { action: "chat_send", text }, "Chat message sent");
	},
);

interactiveRoutes.openapi(
	createRoute({
		method: "get",
		path: path("chat"),
		request: params,
		responses: {
			200: jsonResponse(
				z.object({
					messages: z.array(z.object({ sender: z.string(), text: z.string(), timestamp: z.number(), is_from_bot: z.boolean() })),
					meeting_id: z.number().int(),
				}),
				"The meeting chat as the bot saw it",
			),
		},
	}),
	async (c) => {
		const row = await interactiveMeeting(c);
		const rows = await db(c.env).select().from(chatMessages).where(eq(chatMessages.meetingId, row.id)).orderBy(asc(chatMessages.id)).all();
		return c.json(
			{
				messages: rows.map((m) => ({ sender: m.sender, text: m.text, timestamp: m.timestamp, is_from_bot: m.isFromBot })),
				meeting_id: row.id,
			},
			200,
		);
	},
);

const SCREEN_TYPES = ["image", "video", "url", "html"] as const;

interactiveRoutes.openapi(
	createRoute({
		method: "post",
		path: path("screen"),
		request: { ...params, body: looseBody },
		responses: ack("Content sent to the bot's screen"),
	}),
	async (c) => {
		const row = await interactiveMeeting(c);
		const b = await body(c);
		const type = b.type as (typeof SCREEN_TYPES)[number];
		if (!SCREEN_TYPES.includes(type)) throw invalid("type must be one of: image, video, url, html");
		if (b.start_share === false) throw invalid("start_share=false is not supported: content is shown as soon as it is sent");
		if (type === "html") {
			if (typeof b.html !== "string" || !b.html) throw invalid("html is required for type html");
			return relay(c, row, { action: "screen_show", content_type: "html", html: b.html }, "Screen content command sent");
		}
		return relay(c, row, { action: "screen_show", content_type: type, url: allowedUrl(c, b.url, "url") }, "Screen content command sent");
	},
);

interactiveRoutes.openapi(
	createRoute({ method: "delete", path: path("screen"), request: params, responses: ack("Screen cleared") }),
	async (c) => relay(c, await interactiveMeeting(c), { action: "screen_stop" }, "Screen stop command sent"),
);

interactiveRoutes.openapi(
	createRoute({ method: "put", path: path("avatar"), request: { ...params, body: looseBody }, responses: ack("Avatar sent to the bot") }),
	async (c) => {
		const row = await interactiveMeeting(c);
		const b = await body(c);
		if (typeof b.image_base64 === "string" && b.image_base64) {
			if (!/^[A-Za-z0-9+/=\s]+$/.test(b.image_base64)) throw invalid("image_base64 must be base64");
			return relay(c, row, { action: "avatar_set", image_base64: b.image_base64.replace(/\s/g, "") }, "Avatar set command sent");
		}
		if (b.url === undefined || b.url === null || b.url === "") throw invalid("Either 'url' or 'image_base64' must be provided");
		return relay(c, row, { action: "avatar_set", url: allowedUrl(c, b.url, "url") }, "Avatar set command sent");
	},
);

interactiveRoutes.openapi(
	createRoute({ method: "delete", path: path("avatar"), request: params, responses: ack("Avatar reset") }),
	async (c) => relay(c, await interactiveMeeting(c), { action: "avatar_reset" }, "Avatar reset command sent"),
);
