import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { agentUser, chat, script } from "./helpers";
import { SseReader } from "./sse";

describe("agent chat: a quiet stream", () => {
	it("sends keepalive comments while the model is silent, and no client sees them as frames", async () => {
		const { headers } = await agentUser();
		const marker = crypto.randomUUID();
		// The model pauses longer than the keepalive period (AGENT_SSE_KEEPALIVE_MS in the tests) between its pieces.
		await script(marker, [{ text: ["before ", "after"], delay_ms: Number(env.AGENT_SSE_KEEPALIVE_MS) * 2 }]);
		const reader = new SseReader(await chat(headers, { prompt: `quiet ${marker}` }));
		const events = await reader.until("turn-complete");
		await reader.cancel();
		expect(events.map((e) => e.frame.type)).toEqual(["turn-accepted", "message-delta", "message-delta", "done", "turn-complete"]);
		expect(reader.comments).toBeGreaterThanOrEqual(1);
	});
});
