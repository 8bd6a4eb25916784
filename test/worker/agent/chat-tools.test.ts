import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Invocation } from "../../../src/agent/envelopes";
import type { AgentFrame } from "../../../src/agent/frames";
import { meetCode } from "../../shared/meetings";
import { createPlan, meetUrl } from "../meetings/helpers";
import { call, json } from "../support";
import { agentUser, bodyOf, chat, MODEL_KEY, MODEL_NAME, script, sent } from "./helpers";
import { readAll } from "./sse";

const stub = (userId: number) => env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));

describe("agent chat: tools on the user's own data", () => {
	it("lists the user's meetings with a tool, reports it on the stream, and gives the model the real result", async () => {
		const { headers } = await agentUser();
		const code = meetCode();
		const plan = await createPlan(headers, { title: "Quarterly planning", meeting_url: meetUrl(code) });
		const marker = crypto.randomUUID();
		await script(marker, [
			{ tool_calls: [{ id: "call_meetings", name: "list_meetings", arguments: { limit: 5 }, fragments: 4 }] },
			{ text: ["You have ", "Quarterly planning."] },
		]);
		const events = await readAll(await chat(headers, { prompt: `What meetings do I have? ${marker}` }));
		const frames = events.map((e) => e.frame);
		expect(frames.map((f) => f.type)).toEqual([
			"turn-accepted",
			"tool-call",
			"tool-result",
			"message-delta",
			"message-delta",
			"done",
			"turn-complete",
		]);
		expect(frames[1]).toMatchObject({ type: "tool-call", tool: "list_meetings", args: { limit: 5 }, callId: "call_meetings" });
		expect(frames[2]).toMatchObject({ type: "tool-result", callId: "call_meetings", ok: true });
		expect(frames[5]).toMatchObject({ type: "done", ok: true, reply: "You have Quarterly planning." });

		const requests = await sent(marker);
		expect(requests).toHaveLength(2);
		for (const r of requests) {
			expect(r.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
			expect(bodyOf(r).model).toBe(MODEL_NAME);
		}
		const offered = bodyOf(requests[0]).tools?.map((t) => t.function.name) ?? [];
		expect(offered).toEqual(expect.arrayContaining(["list_meetings", "get_transcript", "send_bot", "stop_bot"]));
		const toolMessage = bodyOf(requests[1]).messages.at(-1);
		expect(toolMessage).toMatchObject({ role: "tool", tool_call_id: "call_meetings" });
		expect(toolMessage?.content).toContain("Quarterly planning");
		expect(toolMessage?.content).toContain(String(plan.id));

		const history = await json<{ turns: unknown[] }>(await call("GET", "/agent/api/sessions/main/history", { headers }));
		expect(history.turns.at(-1)).toEqual({
			role: "agent",
			text: "You have Quarterly planning.",
			ok: true,
			ops: [{ label: "read", tool: "list_meetings" }],
		});
	});

	it("offers a read-only workload no writing tool, and refuses a write it asks for anyway", async () => {
		const { user, headers } = await agentUser();
		const marker = crypto.randomUUID();
		await script(marker, [
			{ tool_calls: [{ id: "call_send", name: "send_bot", arguments: { platform: "google_meet", native_meeting_id: meetCode() } }] },
			{ text: ["Could not."] },
		]);
		const invocation: Invocation = {
			identity: { subject: String(user.id), launcher: "integration:meetings" },
			runner: "claude-code",
			// An event asks for rw, as the reference lets a posted event do: it still runs read-only.
			workspaces: [{ id: "home", mode: "rw" }],
			trigger: "event",
			start: { entrypoint: { inline: `Send a bot ${marker}` } },
		};
		const outcome = await stub(user.id).runInvocation({ userId: user.id, scopes: ["bot", "tx"], tokenId: 0 }, invocation);
		expect(outcome.ok).toBe(true);
		const requests = await sent(marker);
		const offered = bodyOf(requests[0]).tools?.map((t) => t.function.name) ?? [];
		expect(offered).toContain("list_meetings");
		expect(offered).not.toContain("send_bot");
		expect(offered).not.toContain("stop_bot");
		const view = await stub(user.id).workload(outcome.workload_id);
		const result = view?.events.find((f): f is Extract<AgentFrame, { type: "tool-result" }> => f.type === "tool-result");
		expect(result).toMatchObject({ callId: "call_send", ok: false });
		// Nothing was sent: the user has no meeting.
		const meetings = await json<{ meetings: unknown[] }>(await call("GET", "/meetings", { headers }));
		expect(meetings.meetings).toEqual([]);
	});
});
