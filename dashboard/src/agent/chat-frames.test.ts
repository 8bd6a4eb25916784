import { describe, expect, it } from "vitest";
import { applyChatFrame, argsText, type ChatFrame, type ChatTurn, chatFrame, startTurn, turnsFromHistory } from "./chat-frames";

/** The data lines of a real turn, as docs/agent.md#chat and the README show them. */
const STREAM = [
	'{"type":"turn-accepted","turn_id":"turn_1","nonce":"web-1"}',
	'{"type":"message-delta","text":"Let me ","turn_id":"turn_1"}',
	'{"type":"message-delta","text":"look.","turn_id":"turn_1"}',
	'{"type":"tool-call","tool":"list_meetings","args":{"limit":1},"callId":"call_a","turn_id":"turn_1"}',
	'{"type":"tool-result","callId":"call_a","ok":true,"summary":"1 meeting","turn_id":"turn_1"}',
	'{"type":"message-delta","text":"Bob said <img src=x onerror=alert(1)>","turn_id":"turn_1"}',
	'{"type":"done","reply":"Let me look.Bob said <img src=x onerror=alert(1)>","sessionId":"main","ok":true,"turn_id":"turn_1"}',
	'{"type":"turn-complete","turn_id":"turn_1"}',
];

function run(lines: string[], turn: ChatTurn = startTurn("hi")): ChatTurn {
	return lines.reduce((t, line) => {
		// Each data line as the client's SSE reader hands it over: parsed.
		const frame = chatFrame(JSON.parse(line));
		return frame ? applyChatFrame(t, frame) : t;
	}, turn);
}

describe("chat frames into a turn", () => {
	it("joins consecutive deltas, puts the tool call between the texts, and ends replied", () => {
		const turn = run(STREAM);
		expect(turn.turnId).toBe("turn_1");
		expect(turn.parts).toEqual([
			{ kind: "text", text: "Let me look." },
			{ kind: "tool", callId: "call_a", tool: "list_meetings", args: '{"limit":1}', result: { ok: true, summary: "1 meeting" } },
			{ kind: "text", text: "Bob said <img src=x onerror=alert(1)>" },
		]);
		expect(turn.state).toBe("replied");
		expect(turn.complete).toBe(true);
	});

	it("shows each state as the frames arrive: text first, then a tool still running", () => {
		const partial = run(STREAM.slice(0, 4));
		expect(partial.state).toBe("running");
		expect(partial.complete).toBe(false);
		expect(partial.parts.at(-1)).toEqual({ kind: "tool", callId: "call_a", tool: "list_meetings", args: '{"limit":1}' });
	});

	it("keeps the provider failure's detail from done{ok:false}", () => {
		const turn = run([
			'{"type":"turn-accepted","turn_id":"t"}',
			'{"type":"done","reply":"","sessionId":"main","ok":false,"detail":"The model provider refused the credential (HTTP 401); check api_key with PUT /user/models","turn_id":"t"}',
			'{"type":"turn-complete","turn_id":"t"}',
		]);
		expect(turn.state).toBe("failed");
		expect(turn.detail).toContain("refused the credential");
		expect(turn.parts).toEqual([]);
	});

	it("reports an error frame (no model configured) as the turn's failure", () => {
		const turn = run([
			'{"type":"turn-accepted","turn_id":"t"}',
			'{"type":"error","message":"No model is configured: set base_url and model","turn_id":"t"}',
			'{"type":"turn-complete","turn_id":"t"}',
		]);
		expect(turn).toMatchObject({ state: "failed", detail: "No model is configured: set base_url and model", complete: true });
	});

	it("uses done's reply when a reattached stream missed the deltas", () => {
		const turn = run(['{"type":"done","reply":"All done.","sessionId":"main","ok":true,"turn_id":"t"}']);
		expect(turn.parts).toEqual([{ kind: "text", text: "All done." }]);
	});

	it("adds commits with their findings and refused writes", () => {
		const turn = run([
			'{"type":"rejected","violations":["policy/members.json: written only by the platform"],"turn_id":"t"}',
			'{"type":"commit","sha":"0123456789abcdef","findings":[{"path":"kg/x.md","problem":"no frontmatter"}],"turn_id":"t"}',
		]);
		expect(turn.parts).toEqual([
			{ kind: "rejected", violations: ["policy/members.json: written only by the platform"] },
			{ kind: "commit", sha: "0123456789abcdef", findings: [{ path: "kg/x.md", problem: "no frontmatter" }] },
		]);
	});

	it("ignores pings, unknown types and payloads that are not frames", () => {
		expect(chatFrame({ type: "ping" })).toBeNull();
		expect(chatFrame("not json")).toBeNull();
		expect(chatFrame(null)).toBeNull();
		expect(chatFrame({ type: "message-delta", text: "x", turn_id: "t" })).toEqual({ type: "message-delta", text: "x", turn_id: "t" });
	});

	it("ends a turn that completed without done or error as failed", () => {
		const frame: ChatFrame = { type: "turn-complete", turn_id: "t" };
		expect(applyChatFrame(startTurn("x"), frame)).toMatchObject({ state: "failed", complete: true });
	});

	it("cuts long tool arguments to one short line", () => {
		const text = argsText({ content: "x".repeat(500) }, 40);
		expect(text).toHaveLength(40);
		expect(text.endsWith("…")).toBe(true);
	});
});

describe("session history into turns", () => {
	it("pairs each prompt with its reply and keeps the tools that ran", () => {
		const turns = turnsFromHistory([
			{ role: "user", text: "What did Bob say?" },
			{ role: "agent", text: "Hi Alice.", ok: true, ops: [{ label: "read", tool: "get_transcript" }] },
			{ role: "user", text: "And then?" },
			{ role: "agent", text: "The provider failed.", ok: false, ops: [] },
		]);
		expect(turns).toHaveLength(2);
		expect(turns[0]).toMatchObject({ prompt: "What did Bob say?", state: "replied", complete: true });
		expect(turns[0]?.parts).toEqual([
			{ kind: "tool", callId: "history-0", tool: "get_transcript", args: "read", result: { ok: true, summary: "" } },
			{ kind: "text", text: "Hi Alice." },
		]);
		expect(turns[1]).toMatchObject({ prompt: "And then?", state: "failed" });
	});
});
