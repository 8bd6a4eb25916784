import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { agentUser, script, sent } from "../agent/helpers";
import { createPlan, meetUrl } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { answerOf, bearer, mcpClient } from "./mcp-client";

interface TurnAnswer {
	session: string;
	turn_id: string;
	finished: boolean;
	ok: boolean;
	reply: string;
	tool_calls: { tool: string; args: unknown; ok?: boolean; summary?: string }[];
}

async function connectedAgentUser() {
	const u = await agentUser();
	const { client } = await mcpClient(bearer(u.key));
	return { ...u, client };
}

describe("MCP agent_chat runs one turn of the user's agent", () => {
	it("returns the reply and the tool calls the agent made on the user's data", async () => {
		const { headers, client } = await connectedAgentUser();
		await createPlan(headers, { title: "Quarterly planning", meeting_url: meetUrl(meetCode()) });
		const marker = crypto.randomUUID();
		await script(marker, [
			{ tool_calls: [{ id: "call_meetings", name: "list_meetings", arguments: { limit: 5 } }] },
			{ text: ["You have ", "Quarterly planning."] },
		]);
		const answer = answerOf<TurnAnswer>(
			await client.callTool({ name: "agent_chat", arguments: { prompt: `What meetings do I have? ${marker}`, session: "mcp" } }),
		);
		expect(answer.isError).toBe(false);
		expect(answer.body).toMatchObject({
			session: "mcp",
			finished: true,
			ok: true,
			reply: "You have Quarterly planning.",
			tool_calls: [{ tool: "list_meetings", args: { limit: 5 }, ok: true, summary: "1 meeting" }],
		});
		expect(answer.body.turn_id).toMatch(/^turn_/);
		// The model really got the tool's result, and the turn is in the session's history like any other.
		const requests = await sent(marker);
		expect(JSON.stringify(requests[1]?.body)).toContain("Quarterly planning");
		const history = await json<{ turns: { role: string; text: string }[] }>(
			await call("GET", "/agent/api/sessions/mcp/history", { headers }),
		);
		expect(history.turns.map((t) => [t.role, t.text])).toEqual([
			["user", `What meetings do I have? ${marker}`],
			["agent", "You have Quarterly planning."],
		]);
	});

	it("stops waiting after wait_seconds with what was said so far, while the turn finishes on its own", async () => {
		const { headers, client } = await connectedAgentUser();
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["Thinking", " it over: done."], delay_ms: 2500 }]);
		const answer = answerOf<TurnAnswer>(
			await client.callTool({ name: "agent_chat", arguments: { prompt: `Slowly ${marker}`, session: "slow", wait_seconds: 1 } }),
		);
		// The turn had started (its id is known) but not ended: what the reply held so far, maybe nothing yet.
		expect(answer.body).toMatchObject({ finished: false, session: "slow", turn_id: expect.stringMatching(/^turn_/) });
		expect("Thinking it over: done.".startsWith(answer.body.reply)).toBe(true);
		const history = await eventually("the slow turn's history", async () => {
			const h = await json<{ turns: { role: string; text: string }[] }>(await call("GET", "/agent/api/sessions/slow/history", { headers }));
			return h.turns.length === 2 ? h : undefined;
		});
		expect(history.turns[1]).toMatchObject({ role: "agent", text: "Thinking it over: done." });
	});

	it("is a tool error carrying the agent's own message when no model is configured", async () => {
		const { key } = await userWithKey();
		const { client } = await mcpClient(bearer(key));
		const answer = answerOf<{ detail: string }>(await client.callTool({ name: "agent_chat", arguments: { prompt: "Hello?" } }));
		expect(answer.isError).toBe(true);
		expect(answer.body.detail).toMatch(/^No model is configured/);
	});

	it("is a tool error with the failed turn's detail when the model fails", async () => {
		const { client } = await connectedAgentUser();
		const marker = crypto.randomUUID();
		await script(marker, [{ status: 500 }]);
		const answer = answerOf<{ detail: string; status?: number }>(
			await client.callTool({ name: "agent_chat", arguments: { prompt: `Fail ${marker}`, session: "fails" } }),
		);
		expect(answer.isError).toBe(true);
		expect(answer.body.status).toBeUndefined();
		expect(answer.body.detail.length).toBeGreaterThan(0);
		expect(answer.body.detail).not.toContain("sk-live-provider-secret");
	});
});
