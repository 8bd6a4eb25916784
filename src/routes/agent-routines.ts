import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { agentLimits } from "../agent/agent-limits";
import { agentCaller } from "../agent/caller";
import { checkRoutineCron } from "../agent/cron";
import { ROUTINE_EVENTS } from "../agent/routine-invocations";
import type { AppEnv } from "../app-env";
import { ApiError, invalidField, notFound } from "../errors";
import { agentUser } from "../objects";
import { ApiErrorBody, jsonBody, jsonResponse, routeModule } from "./openapi-app";

/**
 * Routines (docs/agent.md#routines): saved prompts the user's agent runs on a schedule or on
 * their meeting events. Mounted under each of AGENT_PREFIXES. The owner is always the key's
 * user: a `subject` in a body is not read.
 */
export const agentRoutineRoutes = routeModule();

export const MAX_ROUTINE_PROMPT = 8000;

export const Routine = z
	.object({
		id: z.string(),
		name: z.string(),
		kind: z.enum(["scheduled", "event"]),
		cron: z.string().nullable(),
		event: z.string().nullable(),
		lifecycle: z.literal("oneshot"),
		plan_summary: z.string(),
		job_id: z.string().nullable().openapi({ description: "The schedule timer of a scheduled routine; null for an event routine" }),
		next_run: z.string().nullable().openapi({ description: "ISO 8601 (UTC); null when disabled or for an event routine" }),
		status: z.enum(["scheduled", "retrying", "listening", "disabled"]),
		enabled: z.boolean(),
		last_run: z.string().nullable(),
		last_ok: z
			.boolean()
			.nullable()
			.openapi({ description: "How the latest run ended: true succeeded, false failed (last_error says why); null before the first run" }),
		last_error: z.string().nullable().openapi({ description: "Why the latest run failed; null after a run that succeeded" }),
		last_reply: z.string().nullable().openapi({
			description:
				"What the agent replied in the latest run, plain text cut to 4000 characters (the whole run is the workload's session history); null when no turn ran",
		}),
		last_workload_id: z.string().nullable().openapi({ description: "The latest run's workload (GET /agent/api/workloads/{workload_id})" }),
		needs_confirmation: z.boolean().openapi({
			description:
				"Made or changed by an agent turn (a routine file) and not yet confirmed: disabled until PATCH .../enabled {enabled: true}",
		}),
		confirmation_reason: z
			.string()
			.nullable()
			.openapi({ description: "Why it waits for confirmation and how to confirm; null when nothing waits" }),
	})
	.openapi("Routine");

export const RoutineCreated = z.object({ routine: Routine, job_id: z.string().nullable(), ran_now: z.boolean() }).openapi("RoutineCreated");
export const RoutineList = z.object({ routines: z.array(Routine) }).openapi("RoutineList");
export const RoutineEnabled = z
	.object({
		ok: z.literal(true),
		name: z.string(),
		enabled: z.boolean(),
		reconcile: z.object({
			subject: z.string(),
			scanned: z.number().int(),
			scheduled: z.number().int(),
			kept: z.number().int(),
			cancelled: z.number().int(),
			skipped: z.number().int(),
		}),
	})
	.openapi("RoutineEnabled");
export const RoutineDeleted = z.object({ ok: z.literal(true), routine_id: z.string() }).openapi("RoutineDeleted");

const CreateRoutineBody = z.object({
	name: z.string().trim().min(1).max(100),
	cron: z.string().max(200).optional().openapi({ description: "Five fields, UTC: minute hour day-of-month month day-of-week" }),
	event: z.enum(ROUTINE_EVENTS).optional().openapi({ description: "Run on this event of the user's own meetings instead of a schedule" }),
	prompt: z.string().trim().min(1).max(MAX_ROUTINE_PROMPT),
	run_now: z.boolean().optional().openapi({
		description:
			"Run once at once, keeping the schedule; default true for a scheduled routine (as the reference), refused for an event routine",
	}),
});

const errors = {
	401: jsonResponse(ApiErrorBody, "No valid API key"),
	403: jsonResponse(ApiErrorBody, "The key lacks the scope: reading takes bot or tx, making or changing routines takes bot"),
};

const caller = (c: Context<AppEnv>) => agentCaller(c.get("identity"));

const stub = (c: Context<AppEnv>) => agentUser(c.env, c.get("identity").userId);

agentRoutineRoutes.openapi(
	createRoute({
		method: "post",
		path: "/routines",
		request: { body: jsonBody(CreateRoutineBody) },
		responses: {
			201: jsonResponse(RoutineCreated, "The routine, created or (same name) replaced; ran_now when a run starts at once"),
			409: jsonResponse(ApiErrorBody, "The user already has the most routines allowed (MAX_ROUTINES_PER_USER); nothing is made"),
			422: jsonResponse(
				ApiErrorBody,
				"A field error; a bad cron names its field (`hour must be 0-23, got 24`), as does one that runs too often",
			),
			...errors,
		},
	}),
	async (c) => {
		const body = c.req.valid("json");
		if ((body.cron === undefined) === (body.event === undefined))
			throw invalidField(["body", "cron"], "Give exactly one of cron (a schedule) or event (meeting.completed)");
		if (body.cron !== undefined) {
			const check = checkRoutineCron(body.cron, agentLimits(c.env).cronFloorMinutes);
			if (!check.ok) throw invalidField(["body", "cron"], check.detail);
			body.cron = check.expression;
		} else if (body.run_now)
			throw invalidField(["body", "run_now"], "run_now applies to a scheduled routine; an event routine runs on its event");
		const created = await stub(c).createRoutine(caller(c), {
			name: body.name,
			cron: body.cron ?? null,
			event: body.event ?? null,
			prompt: body.prompt,
			// The reference's default: the author sees a first result without waiting for the schedule.
			runNow: body.run_now ?? body.cron !== undefined,
		});
		if ("refused" in created) throw new ApiError(409, created.refused);
		return c.json(created, 201);
	},
);

agentRoutineRoutes.openapi(
	createRoute({
		method: "get",
		path: "/routines",
		responses: { 200: jsonResponse(RoutineList, "The user's routines, oldest first"), ...errors },
	}),
	async (c) => c.json({ routines: await stub(c).listRoutines() }, 200),
);

agentRoutineRoutes.openapi(
	createRoute({
		method: "patch",
		path: "/routines/{name}/enabled",
		request: {
			params: z.object({ name: z.string().min(1).max(100) }),
			body: jsonBody(z.object({ enabled: z.boolean() })),
		},
		responses: {
			200: jsonResponse(RoutineEnabled, "Enabled or disabled; reconcile says how the schedule timers were brought in line"),
			404: jsonResponse(ApiErrorBody, "No routine of that name"),
			422: jsonResponse(ApiErrorBody, "A field error"),
			...errors,
		},
	}),
	async (c) => {
		const { name } = c.req.valid("param");
		const { enabled } = c.req.valid("json");
		const reconcile = await stub(c).setRoutineEnabled(caller(c), name, enabled);
		if (!reconcile) throw notFound("Routine not found");
		return c.json({ ok: true as const, name, enabled, reconcile }, 200);
	},
);

agentRoutineRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/routines/{routine_id}",
		request: { params: z.object({ routine_id: z.string().min(1).max(100) }) },
		responses: {
			200: jsonResponse(RoutineDeleted, "Deleted, with its schedule and pending runs"),
			404: jsonResponse(ApiErrorBody, "No routine with that id"),
			...errors,
		},
	}),
	async (c) => {
		const { routine_id } = c.req.valid("param");
		if (!(await stub(c).deleteRoutine(routine_id))) throw notFound("Routine not found");
		return c.json({ ok: true as const, routine_id }, 200);
	},
);
