/**
 * What the agent can do for its user: read and act on their own meetings through the same
 * service functions the REST routes use. SKELETON: the types are the contract between the
 * runtime and the tools; the tools land with the tools work.
 */
import type { Env } from "../env";
import type { Scope } from "../gateway/api-keys";
import type { ToolSpec } from "./model-client";

export type WorkloadMode = "ro" | "rw";

/** Whom a tool acts for, and with what rights: the key's scopes and the workload's mode. */
export interface ToolCaller {
	env: Env;
	userId: number;
	scopes: readonly Scope[];
	mode: WorkloadMode;
}

export type ToolOutcome =
	/** `result` goes back to the model (JSON); `summary` (at most 80 characters) to the client. */
	{ ok: true; result: unknown; summary: string } | { ok: false; error: string; summary: string };

export interface AgentTool {
	spec: ToolSpec;
	/** A tool that changes anything (a bot sent or stopped, words said in a meeting). Never offered to an `ro` workload. */
	writes: boolean;
	/** The key scope the matching REST route needs. */
	scope: Scope;
	run(caller: ToolCaller, args: Record<string, unknown>): Promise<ToolOutcome>;
}

/** The tools offered to a caller: those its scopes reach, without writing tools when read-only. */
export function toolsFor(_caller: ToolCaller): AgentTool[] {
	return [];
}

/** Runs a tool call as the model made it; unknown tools, bad JSON and bad arguments come back as failures. */
export async function runToolCall(_caller: ToolCaller, name: string, _argumentsJson: string): Promise<ToolOutcome> {
	return { ok: false, error: `Unknown tool ${name}`, summary: `unknown tool ${name}` };
}
