import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { agentCaller } from "../agent/caller";
import type { AppEnv } from "../app-env";
import { ApiError } from "../errors";
import { agentUser } from "../objects";
import { ApiErrorBody, jsonBody, jsonResponse, routeModule } from "./openapi-app";

/**
 * Held actions (docs/agent.md#text-other-people-wrote): what an agent turn that had read other
 * people's words wanted to do where others see it (send or stop a bot, speak or post in a
 * meeting, commit to a shared workspace), kept until the user confirms or refuses it. Mounted
 * under each of AGENT_PREFIXES, in the style of a routine's confirmation (`PATCH .../enabled`).
 */
export const agentActionRoutes = routeModule();

export const HeldActionView = z
	.object({
		action_id: z.string(),
		kind: z.enum(["tool", "commit"]),
		tool: z
			.string()
			.nullable()
			.openapi({ description: "The tool the turn called (send_bot, stop_bot, speak, send_chat); null for a commit" }),
		args: z.unknown().openapi({ description: "The call's arguments; for a commit, {workspace, message, files}" }),
		summary: z.string(),
		reason: z.string().openapi({ description: "What brought other people's words into the turn" }),
		session: z.string(),
		turn_id: z.string(),
		workload_id: z.string().nullable(),
		status: z.enum(["pending", "confirming", "done", "failed", "refused"]),
		created_at: z.string(),
		decided_at: z.string().nullable(),
		result: z.unknown().openapi({ description: "What running it gave (the tool's result, or {sha, findings}); null until it ran" }),
		detail: z.string().nullable().openapi({ description: "Why it failed when it ran; null otherwise" }),
	})
	.openapi("HeldAction");

export const HeldActionList = z.object({ actions: z.array(HeldActionView) }).openapi("HeldActionList");
export const HeldActionDecided = z.object({ ok: z.literal(true), action: HeldActionView }).openapi("HeldActionDecided");

const errors = {
	401: jsonResponse(ApiErrorBody, "No valid API key"),
	403: jsonResponse(ApiErrorBody, "The key lacks the scope: reading takes bot or tx, deciding takes bot"),
};

const stub = (c: Context<AppEnv>) => agentUser(c.env, c.get("identity").userId);

agentActionRoutes.openapi(
	createRoute({
		method: "get",
		path: "/actions",
		responses: { 200: jsonResponse(HeldActionList, "The user's held actions, newest first (at most 100)"), ...errors },
	}),
	// The object's views are plain JSON; the response is the documented shape, checked.
	async (c) => c.json(HeldActionList.parse({ actions: await stub(c).listActions() }), 200),
);

agentActionRoutes.openapi(
	createRoute({
		method: "patch",
		path: "/actions/{action_id}/confirmed",
		request: {
			params: z.object({ action_id: z.string().min(1).max(100) }),
			body: jsonBody(z.object({ confirmed: z.boolean() })),
		},
		responses: {
			200: jsonResponse(
				HeldActionDecided,
				"Decided: confirmed, it ran now (status done, or failed with its detail); refused, it never runs (status refused)",
			),
			404: jsonResponse(ApiErrorBody, "No held action with that id"),
			409: jsonResponse(ApiErrorBody, "The action was already decided"),
			422: jsonResponse(ApiErrorBody, "A field error"),
			...errors,
		},
	}),
	async (c) => {
		const { action_id } = c.req.valid("param");
		const { confirmed } = c.req.valid("json");
		const decided = await stub(c).decideAction(agentCaller(c.get("identity")), action_id, confirmed);
		if (decided.status !== 200) throw new ApiError(decided.status, decided.detail ?? "The action cannot be decided");
		return c.json(HeldActionDecided.parse({ ok: true, action: decided.action }), 200);
	},
);
