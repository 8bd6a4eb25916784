import { z } from "@hono/zod-openapi";
import type { Env } from "../env";
import type { Scope } from "../gateway/api-keys";
import type { ToolSpec } from "./model-client";
import type { TurnFiles } from "./turn-files";

/** Who a tool acts for, as a tool body needs it (the access checks are done before it runs). */
export interface ToolUser {
	userId: number;
	/** The turn's files over its workspace; a tool with `files: true` is only offered when there are some. */
	files: TurnFiles | null;
}

/** What a tool body hands back: JSON for the model, a short line for the client. */
export interface ToolReply {
	result: unknown;
	summary: string;
	/** The result carries text other people wrote: the turn is tainted from here on (src/agent/taint.ts). */
	foreign?: boolean;
}

/**
 * One tool as written: its arguments are a zod schema shared with the matching REST route, so
 * the JSON schema the model sees, the route's validation and the tool's validation are one thing.
 */
export interface ToolDefinition<S extends z.ZodType> {
	name: string;
	description: string;
	args: S;
	writes: boolean;
	/**
	 * Acts where other people see it (a meeting, a bot joining or leaving): a tainted turn's call
	 * is held for the user's confirmation instead of run (src/agent/taint.ts).
	 */
	outward?: boolean;
	/** Works on the turn's workspace files (`ToolUser.files`). */
	files?: boolean;
	/** Any of these key scopes reaches it: those the matching REST route accepts. */
	scopes: readonly Scope[];
	run(env: Env, user: ToolUser, args: z.output<S>): Promise<ToolReply>;
}

export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): ToolDefinition<S> {
	return definition;
}

/** The JSON schema of a tool's arguments as a model fills them in (zod's input side: defaults are optional). */
export function parametersOf(args: z.ZodType): Record<string, unknown> {
	const { $schema: _draft, ...schema } = z.toJSONSchema(args, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
	return schema;
}

export function specOf(definition: ToolDefinition<z.ZodType>): ToolSpec {
	return {
		type: "function",
		function: { name: definition.name, description: definition.description, parameters: parametersOf(definition.args) },
	};
}

/** At most `max` characters, for lines shown to the client. */
export function clip(text: string, max = 80): string {
	return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * The newest items of a list that fit a count and a character budget (each item counted as the
 * JSON the model reads), in their original order; how many were left out.
 */
export function newestWithin<T>(items: readonly T[], maxItems: number, maxChars: number): { kept: T[]; omitted: number } {
	const kept: T[] = [];
	let chars = 0;
	for (let i = items.length - 1; i >= 0 && kept.length < maxItems; i--) {
		const size = JSON.stringify(items[i]).length + 1;
		if (chars + size > maxChars) break;
		chars += size;
		kept.push(items[i] as T);
	}
	kept.reverse();
	return { kept, omitted: items.length - kept.length };
}
