import { createRoute, z } from "@hono/zod-openapi";
import type { Act } from "../bot-channel/protocol";
import { botStatuses, liveMeetingOn, relayToBot, stopBot } from "../bots/bot-control";
import { LANGUAGE, PostBotsBody, sendBot, Task } from "../bots/send-bot";
import { MeetingLinkParams } from "../meetings/meeting-link-params";
import { setBotOptions } from "../meetings/meeting-store";
import { BotStatusList, MeetingRecord as Meeting } from "./meeting-schemas";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** The bot routes (docs/api.md#bots): send, list, stop, reconfigure. The work is in src/bots. */
export const botRoutes = routeModule();

const BotLink = MeetingLinkParams;

botRoutes.openapi(
	createRoute({
		method: "post",
		path: "/bots",
		request: { body: jsonBody(PostBotsBody) },
		responses: { 201: jsonResponse(Meeting, "The meeting, now `requested`; join progress shows in GET /bots/status") },
	}),
	async (c) => c.json(await sendBot(c.env, c.get("identity"), c.req.valid("json")), 201),
);

botRoutes.openapi(
	createRoute({
		method: "get",
		path: "/bots/status",
		responses: {
			200: jsonResponse(BotStatusList, "The caller's running bots, then those that failed in the last 10 minutes with why"),
		},
	}),
	async (c) => c.json({ running_bots: await botStatuses(c.env, c.get("identity")) }, 200),
);

botRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/bots/{platform}/{native_meeting_id}",
		request: { params: BotLink },
		responses: { 204: { description: "Stop requested; the meeting ends `completed` with `stopped`" } },
	}),
	async (c) => {
		await stopBot(c.env, c.get("identity"), c.req.valid("param"));
		return c.body(null, 204);
	},
);

botRoutes.openapi(
	createRoute({
		method: "put",
		path: "/bots/{platform}/{native_meeting_id}/config",
		request: {
			params: BotLink,
			body: jsonBody(
				z
					.strictObject({ language: LANGUAGE.nullable().optional(), task: Task.nullable().optional() })
					.refine((b) => b.language !== undefined || b.task !== undefined, { message: "Provide language and/or task" }),
			),
		},
		responses: { 202: jsonResponse(z.object({ message: z.string(), meeting_id: z.number().int() }), "Sent to the bot") },
	}),
	async (c) => {
		const { platform, native_meeting_id } = c.req.valid("param");
		const body = c.req.valid("json");
		const row = await liveMeetingOn(c.env, c.get("identity").userId, platform, native_meeting_id);
		const act: Act = { action: "reconfigure", language: body.language, task: body.task };
		await relayToBot(c.env, row, act);
		await setBotOptions(c.env, row.id, {
			...row.botOptions,
			...(body.language !== undefined ? { language: body.language } : {}),
			...(body.task ? { task: body.task } : {}),
		});
		return c.json({ message: "Config update sent", meeting_id: row.id }, 202);
	},
);
