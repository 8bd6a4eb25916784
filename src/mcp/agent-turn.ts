import { agentCaller } from "../agent/caller";
import type { AgentFrame } from "../agent/frames";
import type { Env } from "../env";
import type { Identity } from "../gateway/identity";
import { agentUser } from "../objects";

/**
 * One agent chat turn for the MCP agent_chat tool: the same turn POST /agent/chat starts in the
 * user's AgentUser object, read from its SSE stream until it ends or the wait is over. A turn
 * left behind by the wait goes on in the object, as it does when an SSE client goes away.
 */

export interface AgentToolCall {
	tool: string;
	args: unknown;
	/** Absent while the tool still runs. */
	ok?: boolean;
	summary?: string;
}

export interface AgentTurnOutcome {
	session: string;
	turn_id: string | null;
	/** False when the wait ended first: `reply` is then what the agent had said so far. */
	finished: boolean;
	ok: boolean;
	reply: string;
	tool_calls: AgentToolCall[];
	/** The workspace commit the turn made, if any. */
	commit?: string;
	/** Why a finished turn did not succeed (the `done` frame's detail). */
	detail?: string;
	/** The stream's `error` frame: the turn never ran (no model configured, a busy session). */
	error?: string;
}

const decoder = new TextDecoder();

/** The frames of an agent SSE stream; keepalive comments are skipped. */
function framesOf(chunk: string): { frames: AgentFrame[]; rest: string } {
	const frames: AgentFrame[] = [];
	const blocks = chunk.split("\n\n");
	const rest = blocks.pop() ?? "";
	for (const block of blocks) {
		const data = block
			.split("\n")
			.filter((line) => line.startsWith("data: "))
			.map((line) => line.slice(6))
			.join("\n");
		if (data) frames.push(JSON.parse(data) as AgentFrame);
	}
	return { frames, rest };
}

function apply(outcome: AgentTurnOutcome, calls: Map<string, AgentToolCall>, frame: AgentFrame): void {
	outcome.turn_id = frame.turn_id;
	switch (frame.type) {
		case "message-delta":
			outcome.reply += frame.text;
			return;
		case "tool-call": {
			const call: AgentToolCall = { tool: frame.tool, args: frame.args };
			calls.set(frame.callId, call);
			outcome.tool_calls.push(call);
			return;
		}
		case "tool-result": {
			const call = calls.get(frame.callId);
			if (call) Object.assign(call, { ok: frame.ok, summary: frame.summary });
			return;
		}
		case "commit":
			outcome.commit = frame.sha;
			return;
		case "done":
			Object.assign(outcome, { ok: frame.ok, reply: frame.reply, ...(frame.detail ? { detail: frame.detail } : {}) });
			return;
		case "error":
			outcome.error = frame.message;
			return;
		case "turn-complete":
			outcome.finished = true;
			return;
	}
}

/** Runs one chat turn in `session` and waits at most `waitMs` for it to end. */
export async function runAgentTurn(
	env: Env,
	identity: Identity,
	turn: { prompt: string; session: string },
	waitMs: number,
): Promise<AgentTurnOutcome> {
	const response = await agentUser(env, identity.userId).chat(agentCaller(identity), {
		prompt: turn.prompt,
		session: turn.session,
		active: null,
		turnId: null,
		lastEventId: null,
	});
	const outcome: AgentTurnOutcome = { session: turn.session, turn_id: null, finished: false, ok: false, reply: "", tool_calls: [] };
	if (!response.body) return outcome;
	const calls = new Map<string, AgentToolCall>();
	const reader = response.body.getReader();
	let timer: ReturnType<typeof setTimeout> | undefined;
	const waited = new Promise<"waited">((resolve) => {
		timer = setTimeout(() => resolve("waited"), waitMs);
	});
	let buffer = "";
	try {
		while (!outcome.finished) {
			const read = await Promise.race([reader.read(), waited]);
			if (read === "waited" || read.done) break;
			const parsed = framesOf(buffer + decoder.decode(read.value, { stream: true }));
			buffer = parsed.rest;
			for (const frame of parsed.frames) apply(outcome, calls, frame);
		}
	} finally {
		clearTimeout(timer);
		await reader.cancel().catch(() => undefined);
	}
	return outcome;
}
