import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { agentCaller } from "../agent/caller";
import { ChatBody, SessionName } from "../agent/chat-request";
import type { AppEnv } from "../app-env";
import { agentUser } from "../objects";
import { lastEventId } from "./last-event-id";
import { jsonResponse, routeModule } from "./openapi-app";

/**
 * Chat and sessions of the agent plane (docs/agent.md#chat): a turn streamed as Server-Sent
 * Events from the user's AgentUser object, unchanged, and the sessions it keeps. Mounted under
 * each of AGENT_PREFIXES.
 */
export const agentChatRoutes = routeModule();

const ResetBody = z.object({ session: SessionName.optional() }).openapi("AgentChatReset");

const SessionList = z
	.object({
		sessions: z.array(
			z
				.object({
					session: z.string(),
					title: z.string(),
					created: z.number().openapi({ description: "Seconds since the epoch (the reference's unit)" }),
					last_active: z.number().openapi({ description: "Seconds since the epoch" }),
					workload_id: z
						.string()
						.nullable()
						.openapi({ description: "The workload whose run this session is (`wl-<workload id>`); null for a chat" }),
				})
				.openapi("AgentSession"),
		),
	})
	.openapi("AgentSessionList");

const HistoryTurn = z
	.union([
		z.object({ role: z.literal("user"), text: z.string() }),
		z.object({
			role: z.literal("agent"),
			text: z.string(),
			ok: z.boolean(),
			ops: z.array(z.object({ label: z.string(), tool: z.string() })),
		}),
	])
	.openapi("AgentHistoryTurn");

const SseStream = {
	content: { "text/event-stream": { schema: z.string() } },
	description:
		"Server-Sent Events: one `data:` JSON frame per event (turn-accepted, message-delta, tool-call, tool-result, commit, " +
		"rejected, done, error, turn-complete), each with an `id:` that `Last-Event-ID` resumes after; `: keepalive` comments while quiet.",
};

const caller = (c: Context<AppEnv>) => agentCaller(c.get("identity"));

agentChatRoutes.openapi(
	createRoute({
		method: "post",
		path: "/chat",
		request: { body: { required: true, content: { "application/json": { schema: ChatBody } } } },
		responses: { 200: SseStream },
	}),
	async (c) => {
		const body = c.req.valid("json");
		const cursor = lastEventId(c);
		const active =
			body.active === undefined || body.active === null
				? null
				: typeof body.active === "string"
					? body.active
					: JSON.stringify(body.active);
		const identity = caller(c);
		const response = await agentUser(c.env, identity.userId).chat(identity, {
			prompt: body.prompt,
			session: body.session ?? "main",
			active: active?.slice(0, 2000) ?? null,
			turnId: body.turn_id ?? null,
			lastEventId: cursor,
		});
		// The object's stream goes out as it is: wrapping it would buffer or re-encode it.
		return response as unknown as ReturnType<typeof c.body>;
	},
);

agentChatRoutes.openapi(
	createRoute({
		method: "post",
		path: "/chat/reset",
		request: { body: { required: false, content: { "application/json": { schema: ResetBody } } } },
		responses: { 200: jsonResponse(z.object({ ok: z.literal(true) }), "The session's history is gone") },
	}),
	async (c) => {
		const body = c.req.header("content-type") ? c.req.valid("json") : {};
		const identity = caller(c);
		await agentUser(c.env, identity.userId).resetSession(body.session ?? "main");
		return c.json({ ok: true as const }, 200);
	},
);

agentChatRoutes.openapi(
	createRoute({
		method: "get",
		path: "/sessions",
		request: {
			query: z.object({
				include: z.enum(["workloads"]).optional().openapi({
					description: "`workloads`: list the `wl-<workload id>` sessions of routine and invocation runs too (left out by default)",
				}),
			}),
		},
		responses: { 200: jsonResponse(SessionList, "The caller's chat sessions, most recently active first") },
	}),
	async (c) => {
		const identity = caller(c);
		const withWorkloads = c.req.valid("query").include === "workloads";
		return c.json({ sessions: await agentUser(c.env, identity.userId).sessions(withWorkloads) }, 200);
	},
);

agentChatRoutes.openapi(
	createRoute({
		method: "get",
		path: "/sessions/{session}/history",
		request: { params: z.object({ session: z.string().openapi({ description: "Any name: one no session can have finds nothing" }) }) },
		responses: {
			200: jsonResponse(
				z.object({ turns: z.array(HistoryTurn) }).openapi("AgentHistory"),
				"The session's turns, oldest first; none for a session that does not exist",
			),
		},
	}),
	async (c) => {
		const { session } = c.req.valid("param");
		// A name no session can have (chat refuses it) has no history, as the reference answers for any it cannot find.
		if (!SessionName.safeParse(session).success) return c.json({ turns: [] }, 200);
		const identity = caller(c);
		return c.json({ turns: await agentUser(c.env, identity.userId).history(session) }, 200);
	},
);
