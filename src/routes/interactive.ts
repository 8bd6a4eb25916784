import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import type { Act } from "../bot-channel/protocol";
import {
	allowedUrl,
	inlineBase64,
	interactiveMeeting as liveInteractive,
	readChat,
	relayCommand,
	sendChat,
	speak,
} from "../bots/bot-actions";
import type { MeetingRow } from "../db/schema";
import { ApiError } from "../errors";
import { MeetingLinkParams } from "../meetings/meeting-link-params";
import { PLATFORM_FACTS } from "../platforms";
import { PRESENTATIONS, plannedPresentation } from "../platforms/share-facts";
import { MeetingChat } from "./meeting-schemas";
import { jsonResponse, routeModule } from "./openapi-app";

/** The interactive bot actions (docs/api.md#interactive-bot-actions): speak, chat, screen, avatar, relayed to the live bot. */
export const interactiveRoutes = routeModule();

const Ack = z.object({ message: z.string(), meeting_id: z.number().int() });
const ack = (description: string) => ({ 202: jsonResponse(Ack, description) });
/** Bodies are checked in the handlers, which answer with the exact detail strings of docs/api.md#interactive-bot-actions. */
const looseBody = { required: false, content: { "application/json": { schema: z.record(z.string(), z.unknown()) } } };

const invalid = (detail: string) => new ApiError(422, detail);

const linkOf = (c: Context<AppEnv>) => MeetingLinkParams.parse(c.req.param());

/** The live meeting on the link, with interactive actions enabled for its bot. */
const interactiveMeeting = (c: Context<AppEnv>): Promise<MeetingRow> => liveInteractive(c.env, c.get("identity"), linkOf(c));

async function relay(c: Context<AppEnv>, row: MeetingRow, act: Act, message: string) {
	return c.json(await relayCommand(c.env, row, act, message), 202);
}

/** The JSON body (already parsed and cached by the validator), or {} when none was sent. */
async function body(c: Context<AppEnv>): Promise<Record<string, unknown>> {
	if (!c.req.header("content-type")) return {};
	const value: unknown = await c.req.json().catch(() => null);
	return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

const path = (action: string) => `/bots/{platform}/{native_meeting_id}/${action}`;
const params = { params: MeetingLinkParams };

interactiveRoutes.openapi(
	createRoute({ method: "post", path: path("speak"), request: { ...params, body: looseBody }, responses: ack("Speech sent to the bot") }),
	async (c) => c.json(await speak(c.env, c.get("identity"), linkOf(c), await body(c)), 202),
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
	async (c) => c.json(await sendChat(c.env, c.get("identity"), linkOf(c), await body(c)), 202),
);

interactiveRoutes.openapi(
	createRoute({
		method: "get",
		path: path("chat"),
		request: params,
		responses: {
			200: jsonResponse(MeetingChat, "The meeting chat as the bot saw it, of the newest started meeting on the link, live or ended"),
		},
	}),
	async (c) => c.json(await readChat(c.env, c.get("identity"), linkOf(c)), 200),
);

const SCREEN_TYPES = ["image", "video", "url", "html"] as const;

/** The screen answer: the ack, plus how the content is planned to reach the meeting (docs/api.md#interactive-bot-actions). */
const ScreenAck = Ack.extend({
	presented_as: z.enum(PRESENTATIONS).openapi({
		description:
			"The plan, from what the platform lets a guest bot do: `screen_share` (the platform's own screen share, the camera " +
			"keeping the avatar) or `camera`. The bot falls back to the camera when the platform refuses the share; " +
			"`screen.sharing_started` on /ws says which was used.",
	}),
});

/** Relays a screen command and answers with its plan. */
async function relayScreen(c: Context<AppEnv>, row: MeetingRow, act: Act) {
	const ack = await relayCommand(c.env, row, act, "Screen content command sent");
	return c.json({ ...ack, presented_as: plannedPresentation(PLATFORM_FACTS[linkOf(c).platform].screenShare) }, 202);
}

interactiveRoutes.openapi(
	createRoute({
		method: "post",
		path: path("screen"),
		request: { ...params, body: looseBody },
		responses: { 202: jsonResponse(ScreenAck, "Content sent to the bot's screen") },
	}),
	async (c) => {
		const row = await interactiveMeeting(c);
		const b = await body(c);
		if (b.start_share !== undefined && b.start_share !== null && typeof b.start_share !== "boolean")
			throw invalid("start_share must be a boolean");
		// `{start_share: true}` alone starts what an earlier `start_share: false` loaded.
		if (b.start_share === true && [b.type, b.url, b.html].every((v) => v === undefined || v === null))
			return relayScreen(c, row, { action: "screen_start" });
		const type = b.type as (typeof SCREEN_TYPES)[number];
		if (!SCREEN_TYPES.includes(type)) throw invalid("type must be one of: image, video, url, html");
		// start_share false: the bot loads the content now and shows it at the next start.
		const start = b.start_share === false ? { start: false } : {};
		if (type === "html") {
			if (typeof b.html !== "string" || !b.html) throw invalid("html is required for type html");
			return relayScreen(c, row, { action: "screen_show", content_type: "html", html: b.html, ...start });
		}
		return relayScreen(c, row, { action: "screen_show", content_type: type, url: allowedUrl(c.env, b.url, "url"), ...start });
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
			return relay(c, row, { action: "avatar_set", image_base64: inlineBase64(b.image_base64, "image_base64") }, "Avatar set command sent");
		}
		if (b.url === undefined || b.url === null || b.url === "") throw invalid("Either 'url' or 'image_base64' must be provided");
		return relay(c, row, { action: "avatar_set", url: allowedUrl(c.env, b.url, "url") }, "Avatar set command sent");
	},
);

interactiveRoutes.openapi(
	createRoute({ method: "delete", path: path("avatar"), request: params, responses: ack("Avatar reset") }),
	async (c) => relay(c, await interactiveMeeting(c), { action: "avatar_reset" }, "Avatar reset command sent"),
);
