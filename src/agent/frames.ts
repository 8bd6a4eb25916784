/**
 * The frames of an agent turn as clients read them over Server-Sent Events (docs/agent.md#chat).
 * The turn's content is `message-delta`, `tool-call`, `tool-result`, `commit`, `rejected`, `action-held`,
 * `done` and `error`; `turn-accepted` and `turn-complete` frame each turn, as the reference's clients expect.
 * Every frame carries its turn's id; the SSE `id:` of a frame is its sequence number in the
 * user's event log, so `Last-Event-ID` is an exact cursor.
 */
import { z } from "@hono/zod-openapi";

const turn = { turn_id: z.string() };
const Finding = z.object({ path: z.string(), problem: z.string() });

/**
 * Every frame of a turn, declared once: the Worker writes them, /openapi.json documents them
 * (the client's `AgentFrame` is generated from it), and the dashboard reads them with the inferred type.
 */
export const AgentFrame = z
	.discriminatedUnion("type", [
		z.object({ ...turn, type: z.literal("turn-accepted"), nonce: z.string().optional() }),
		z.object({ ...turn, type: z.literal("message-delta"), text: z.string() }),
		z.object({ ...turn, type: z.literal("tool-call"), tool: z.string(), args: z.unknown(), callId: z.string() }),
		z.object({ ...turn, type: z.literal("tool-result"), callId: z.string(), ok: z.boolean(), summary: z.string() }),
		z.object({
			...turn,
			type: z.literal("commit"),
			sha: z.string(),
			findings: z.array(Finding).optional().openapi({
				description: "What the commit's checks found: kg/ conformance, routine files (not a routine, or waiting for confirmation)",
			}),
		}),
		z.object({ ...turn, type: z.literal("rejected"), violations: z.array(z.string()) }),
		z
			.object({
				...turn,
				type: z.literal("action-held"),
				action_id: z.string(),
				kind: z.enum(["tool", "commit"]),
				tool: z.string().nullable(),
				summary: z.string(),
				reason: z.string(),
			})
			.openapi({
				description:
					"The turn had read text other people wrote, so this action (a tool acting in a meeting, a commit to a shared workspace) was not taken: it waits for PATCH /agent/actions/{action_id}/confirmed",
			}),
		z.object({
			...turn,
			type: z.literal("done"),
			reply: z.string(),
			sessionId: z.string(),
			ok: z.boolean(),
			detail: z.string().optional(),
		}),
		z.object({ ...turn, type: z.literal("error"), message: z.string() }),
		z.object({ ...turn, type: z.literal("turn-complete") }),
	])
	.openapi("AgentFrame");
export type AgentFrame = z.infer<typeof AgentFrame>;

/** A file a check found wrong: a kg/ concept without `type`, a routine file with a bad cron (same shape as the kg/ validator's). */
export type Finding = z.infer<typeof Finding>;

/** A frame before its turn's id is stamped on it (each variant keeps its own fields). */
export type AgentFrameBody = AgentFrame extends infer F ? (F extends AgentFrame ? Omit<F, "turn_id"> : never) : never;

/** A frame as it was logged: its sequence number is its SSE id. */
export interface LoggedFrame {
	seq: number;
	frame: AgentFrame;
}

const encoder = new TextEncoder();

/** One SSE event: its `id:` is the sequence number a client resumes from with `Last-Event-ID`. */
export function sseEvent(id: number, data: unknown): Uint8Array {
	return encoder.encode(`id: ${id}\ndata: ${JSON.stringify(data)}\n\n`);
}

export function sseFrame({ seq, frame }: LoggedFrame): Uint8Array {
	return sseEvent(seq, frame);
}

/** A comment line: keeps proxies and the edge from closing a quiet stream, and no client sees it as an event. */
export const SSE_KEEPALIVE = encoder.encode(": keepalive\n\n");

/**
 * `Content-Encoding: identity` stops wrangler dev (and proxies) from gzipping, and so
 * buffering, the stream (workers-sdk #5614); `X-Accel-Buffering: no` does the same for nginx.
 */
export const SSE_HEADERS: Record<string, string> = {
	"content-type": "text/event-stream; charset=utf-8",
	"cache-control": "no-cache, no-transform",
	"content-encoding": "identity",
	"x-accel-buffering": "no",
};
