/**
 * The frames of an agent turn as clients read them over Server-Sent Events (docs/agent.md#chat).
 * The turn's content is `message-delta`, `tool-call`, `tool-result`, `commit`, `rejected`, `done` and
 * `error`; `turn-accepted` and `turn-complete` frame each turn, as the reference's clients expect.
 * Every frame carries its turn's id; the SSE `id:` of a frame is its sequence number in the
 * user's event log, so `Last-Event-ID` is an exact cursor.
 */
import type { KgFinding } from "../workspace/workspace-types";

export type AgentFrameBody =
	| { type: "turn-accepted"; nonce?: string }
	| { type: "message-delta"; text: string }
	| { type: "tool-call"; tool: string; args: unknown; callId: string }
	| { type: "tool-result"; callId: string; ok: boolean; summary: string }
	/** `findings`: what the commit's checks found (kg/ conformance, routine files), when anything. */
	| { type: "commit"; sha: string; findings?: Finding[] }
	| { type: "rejected"; violations: string[] }
	| { type: "done"; reply: string; sessionId: string; ok: boolean; detail?: string }
	| { type: "error"; message: string }
	| { type: "turn-complete" };

/** A file a check found wrong: a kg/ concept without `type`, a routine file with a bad cron (same shape as the kg/ validator's). */
export type Finding = KgFinding;

export type AgentFrame = AgentFrameBody & { turn_id: string };

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
