/**
 * A chat turn as the page shows it, built from the frames of `POST /agent/chat`
 * (docs/agent.md#chat) or from a session's stored history. Pure: the page feeds frames in as
 * they arrive and renders what comes out, always as text.
 */

import type { Schemas } from "@meetbot/client";
import type { AgentFrame, Finding } from "../../../src/agent/frames";

export type { Finding };
/** A frame of a turn, as the Worker declares it. */
export type ChatFrame = AgentFrame;

export type TurnPart =
	| { kind: "text"; text: string }
	| { kind: "tool"; callId: string; tool: string; args: string; result?: { ok: boolean; summary: string } }
	| { kind: "commit"; sha: string; findings: Finding[] }
	| { kind: "rejected"; violations: string[] }
	/** An action the turn was not allowed to take on its own: it waits for the user (docs/agent.md#text-other-people-wrote). */
	| { kind: "held"; actionId: string; summary: string; reason: string };

/** `running` until `done` or `error`; `complete` once `turn-complete` ended the stream. */
export type TurnState = "running" | "replied" | "failed";

export interface ChatTurn {
	prompt: string;
	parts: TurnPart[];
	state: TurnState;
	/** The failure in the API's words: `done.detail` or `error.message`. */
	detail?: string;
	turnId?: string;
	complete: boolean;
}

/** Every frame type: a Record, so a type added to the Worker's frames and not here fails to compile. */
const FRAME_TYPES: Record<ChatFrame["type"], true> = {
	"turn-accepted": true,
	"message-delta": true,
	"tool-call": true,
	"tool-result": true,
	commit: true,
	rejected: true,
	"action-held": true,
	done: true,
	error: true,
	"turn-complete": true,
};

/** One SSE event's payload as a frame; anything else (a ping, a frame of another kind) is null and ignored. */
export function chatFrame(payload: unknown): ChatFrame | null {
	if (typeof payload !== "object" || payload === null) return null;
	const type = (payload as { type?: unknown }).type;
	return typeof type === "string" && Object.hasOwn(FRAME_TYPES, type) ? (payload as ChatFrame) : null;
}

export function startTurn(prompt: string): ChatTurn {
	return { prompt, parts: [], state: "running", complete: false };
}

/** Tool arguments on one line, cut short: they are the model's output, shown only as a hint. */
export function argsText(args: unknown, max = 160): string {
	let text: string;
	try {
		text = typeof args === "string" ? args : (JSON.stringify(args) ?? "");
	} catch {
		text = String(args);
	}
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function str(value: unknown): string {
	return typeof value === "string" ? value : "";
}

function replyText(parts: TurnPart[]): string {
	return parts.map((part) => (part.kind === "text" ? part.text : "")).join("");
}

export function applyChatFrame(turn: ChatTurn, frame: ChatFrame): ChatTurn {
	switch (frame.type) {
		case "turn-accepted":
			return { ...turn, turnId: frame.turn_id };
		case "message-delta": {
			const last = turn.parts.at(-1);
			const text = str(frame.text);
			if (last?.kind === "text") return { ...turn, parts: [...turn.parts.slice(0, -1), { kind: "text", text: last.text + text }] };
			return { ...turn, parts: [...turn.parts, { kind: "text", text }] };
		}
		case "tool-call":
			return {
				...turn,
				parts: [...turn.parts, { kind: "tool", callId: str(frame.callId), tool: str(frame.tool), args: argsText(frame.args) }],
			};
		case "tool-result":
			return {
				...turn,
				parts: turn.parts.map((part) =>
					part.kind === "tool" && part.callId === frame.callId && !part.result
						? { ...part, result: { ok: frame.ok === true, summary: str(frame.summary) } }
						: part,
				),
			};
		case "commit":
			return {
				...turn,
				parts: [...turn.parts, { kind: "commit", sha: str(frame.sha), findings: Array.isArray(frame.findings) ? frame.findings : [] }],
			};
		case "rejected":
			return {
				...turn,
				parts: [...turn.parts, { kind: "rejected", violations: Array.isArray(frame.violations) ? frame.violations.map(String) : [] }],
			};
		case "action-held":
			return {
				...turn,
				parts: [...turn.parts, { kind: "held", actionId: str(frame.action_id), summary: str(frame.summary), reason: str(frame.reason) }],
			};
		case "done": {
			// A reattached stream may have missed the deltas: the reply stands in for them.
			const parts =
				replyText(turn.parts) === "" && str(frame.reply) !== ""
					? [...turn.parts, { kind: "text" as const, text: frame.reply }]
					: turn.parts;
			if (frame.ok === false) return { ...turn, parts, state: "failed", detail: str(frame.detail) || "The turn failed." };
			return { ...turn, parts, state: "replied" };
		}
		case "error":
			return { ...turn, state: "failed", detail: str(frame.message) || "The turn was refused." };
		case "turn-complete":
			return {
				...turn,
				complete: true,
				state: turn.state === "running" ? "failed" : turn.state,
				detail: turn.state === "running" ? "The turn ended without a reply." : turn.detail,
			};
	}
}

/** A stored session (`GET /agent/sessions/{s}/history`) as turns: each user line opens one. */
export function turnsFromHistory(entries: Schemas["AgentHistoryTurn"][]): ChatTurn[] {
	const turns: ChatTurn[] = [];
	for (const entry of entries) {
		if (entry.role === "user") {
			turns.push({ prompt: str(entry.text), parts: [], state: "replied", complete: true });
			continue;
		}
		let turn = turns.at(-1);
		if (!turn || turn.parts.length > 0) {
			turn = { prompt: "", parts: [], state: "replied", complete: true };
			turns.push(turn);
		}
		// History keeps which tools ran and what kind of work each was, not their results.
		const ops: TurnPart[] = (entry.ops ?? []).map((op, i) => ({
			kind: "tool",
			callId: `history-${i}`,
			tool: str(op.tool),
			args: str(op.label),
			result: { ok: true, summary: "" },
		}));
		turn.parts = [...ops, { kind: "text", text: str(entry.text) }];
		if (entry.ok === false) {
			turn.state = "failed";
			turn.detail = "This turn failed.";
		}
	}
	return turns;
}
