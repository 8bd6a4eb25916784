/**
 * What the agent can do for its user: read and act on their own meetings through the same
 * service functions the REST routes use (src/bots, src/meetings), never an HTTP loopback.
 */
import type { z } from "@hono/zod-openapi";
import type { Env } from "../env";
import { errorName } from "../error-text";
import { ApiError, type FieldError } from "../errors";
import type { Scope } from "../gateway/api-keys";
import { BOT_TOOLS } from "./bot-tools";
import { MEETING_TOOLS } from "./meeting-tools";
import type { ToolSpec } from "./model-client";
import { clip, specOf, type ToolDefinition } from "./tool-definition";
import type { TurnFiles } from "./turn-files";
import { WORKSPACE_TOOLS } from "./workspace-tools";

export type WorkloadMode = "ro" | "rw";

/** Whom a tool acts for, and with what rights: the key's scopes and the workload's mode. */
export interface ToolCaller {
	env: Env;
	userId: number;
	scopes: readonly Scope[];
	mode: WorkloadMode;
	/** The turn's staged files over its workspace; absent when the turn has no workspace. */
	files?: TurnFiles | null;
	/** The invocation's `tools` list: only these may be offered and called; absent or null, no list. */
	allowed?: readonly string[] | null;
}

export type ToolOutcome =
	/** `result` goes back to the model (JSON); `summary` (at most 80 characters) to the client; `foreign`: it carries other people's words. */
	{ ok: true; result: unknown; summary: string; foreign: boolean } | { ok: false; error: string; summary: string };

type ToolFailure = Extract<ToolOutcome, { ok: false }>;

/** A call that may run: the tool, and its arguments checked against its schema. */
export interface PreparedCall {
	tool: AgentTool;
	args: Record<string, unknown>;
}

export interface AgentTool {
	spec: ToolSpec;
	/** A tool that changes anything (a bot sent or stopped, words said in a meeting, a file). Never offered to an `ro` workload. */
	writes: boolean;
	/** Acts where other people see it: held for confirmation in a tainted turn (src/agent/taint.ts). */
	outward: boolean;
	/** Needs the turn's workspace files. */
	files: boolean;
	/** The key scopes the matching REST route accepts: any one of them reaches the tool. */
	scopes: readonly Scope[];
	/** Why this caller may not make this call, or the arguments as the tool's schema reads them. */
	check(caller: ToolCaller, args: Record<string, unknown>): ToolFailure | { ok: true; args: Record<string, unknown> };
	/** Runs a call `check` passed. */
	run(caller: ToolCaller, args: Record<string, unknown>): Promise<ToolOutcome>;
}

const failure = (error: string, summary: string): ToolFailure => ({ ok: false, error, summary: clip(summary) });

/**
 * Why this caller may not use this tool (for the model, and a short line for the client), or
 * null when it may. The mode and the invocation's tools list are enforced here, not only labelled.
 */
function refusal(caller: ToolCaller, tool: AgentTool): { error: string; summary: string } | null {
	const name = tool.spec.function.name;
	const refused = (error: string) => ({ error, summary: `${name} not allowed` });
	if (caller.allowed && !caller.allowed.includes(name)) {
		const listed = caller.allowed.length ? caller.allowed.join(", ") : "none";
		return {
			error: `${name} is not allowed in this invocation (its tools: ${listed})`,
			summary: `${name} is not allowed in this invocation`,
		};
	}
	if (!tool.scopes.some((s) => caller.scopes.includes(s)))
		return refused(`This key's scopes do not allow ${name} (it needs ${tool.scopes.join(" or ")})`);
	if (tool.writes && caller.mode !== "rw") return refused(`${name} changes things and this workload is read-only`);
	if (tool.files && !caller.files) return refused(`${name} needs a workspace and this turn has none`);
	return null;
}

/** A REST detail as one line: a 422's field errors become `loc: msg` pairs. */
function detailText(detail: string | FieldError[]): string {
	if (typeof detail === "string") return detail;
	return detail.map((e) => `${e.loc.join(".")}: ${e.msg}`).join("; ");
}

function argumentProblems(error: z.ZodError): string {
	return error.issues.map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message)).join("; ");
}

function agentTool(definition: ToolDefinition<z.ZodType>): AgentTool {
	const name = definition.name;
	const tool: AgentTool = {
		spec: specOf(definition),
		writes: definition.writes,
		outward: definition.outward === true,
		files: definition.files === true,
		scopes: definition.scopes,
		check(caller, args) {
			const refused = refusal(caller, tool);
			if (refused) return failure(refused.error, refused.summary);
			const parsed = definition.args.safeParse(args);
			if (!parsed.success) return failure(`Invalid arguments: ${argumentProblems(parsed.error)}`, `${name}: invalid arguments`);
			return { ok: true, args: parsed.data as Record<string, unknown> };
		},
		async run(caller, args) {
			const checked = tool.check(caller, args);
			if (!checked.ok) return checked;
			try {
				const reply = await definition.run(caller.env, { userId: caller.userId, files: caller.files ?? null }, checked.args);
				return { ok: true, result: reply.result, summary: clip(reply.summary), foreign: reply.foreign === true };
			} catch (err) {
				// The same answer the REST route gives; anything else stays on our side.
				if (err instanceof ApiError) return failure(detailText(err.detail), `${name} failed: ${detailText(err.detail)}`);
				console.error("agent tool failed", name, errorName(err));
				return failure(`${name} failed on our side; try again later`, `${name} failed`);
			}
		},
	};
	return tool;
}

const TOOLS: readonly AgentTool[] = [...MEETING_TOOLS, ...BOT_TOOLS, ...WORKSPACE_TOOLS].map((d) =>
	agentTool(d as ToolDefinition<z.ZodType>),
);
const BY_NAME = new Map(TOOLS.map((t) => [t.spec.function.name, t]));

/** Every tool the agent has, by name: what an invocation's `tools` list may name. */
export const AGENT_TOOL_NAMES: readonly string[] = [...BY_NAME.keys()];

/** The tools offered to a caller: those its scopes reach and its invocation lists, without writing tools when read-only. */
export function toolsFor(caller: ToolCaller): AgentTool[] {
	return TOOLS.filter((t) => refusal(caller, t) === null);
}

/** A tool call as the model made it, checked: the tool and its arguments, or why it cannot run (unknown tool, bad JSON or arguments, not allowed). */
export function prepareToolCall(caller: ToolCaller, name: string, argumentsJson: string): ToolFailure | PreparedCall {
	const tool = BY_NAME.get(name);
	if (!tool) return failure(`Unknown tool ${clip(name, 100)}`, `unknown tool ${name}`);
	// Models send "" for a call without arguments.
	let args: unknown = {};
	if (argumentsJson.trim()) {
		try {
			args = JSON.parse(argumentsJson);
		} catch {
			return failure("The arguments are not valid JSON", `${name}: arguments not JSON`);
		}
	}
	if (!args || typeof args !== "object" || Array.isArray(args))
		return failure("The arguments must be a JSON object", `${name}: invalid arguments`);
	const checked = tool.check(caller, args as Record<string, unknown>);
	return checked.ok ? { tool, args: checked.args } : checked;
}

/** Runs a tool call as the model made it; unknown tools, bad JSON and bad arguments come back as failures. */
export async function runToolCall(caller: ToolCaller, name: string, argumentsJson: string): Promise<ToolOutcome> {
	const prepared = prepareToolCall(caller, name, argumentsJson);
	return "tool" in prepared ? prepared.tool.run(caller, prepared.args) : prepared;
}
