import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";
import { readAll } from "./sse";

/** Chat and session routes without a model: the refusal, input checks, sessions and history. */
describe("agent chat without a model", () => {
	it("refuses the turn in-band without accepting it: an actionable error, turn-complete, each with an id and the turn id", async () => {
		const { headers } = await userWithKey();
		const res = await call("POST", "/agent/api/chat", { headers, json: { prompt: "What meetings did I have?" } });
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
		expect(res.headers.get("cache-control")).toContain("no-cache");
		const events = await readAll(res);
		expect(events.map((e) => e.frame.type)).toEqual(["error", "turn-complete"]);
		const error = events[0]?.frame;
		expect(error?.type === "error" && error.message).toContain("PUT /user/models");
		const turnIds = new Set(events.map((e) => e.frame.turn_id));
		expect(turnIds.size).toBe(1);
		expect([...turnIds][0]).toMatch(/^turn_/);
		const ids = events.map((e) => e.id);
		expect(ids).toEqual([...ids].sort((a, b) => a - b));
		expect(new Set(ids).size).toBe(2);

		// A refused turn is not a conversation: no session, no history.
		expect(await json(await call("GET", "/agent/api/sessions", { headers }))).toEqual({ sessions: [] });
		expect(await json(await call("GET", "/agent/api/sessions/main/history", { headers }))).toEqual({ turns: [] });
	});

	it("answers on the short /agent form too, and ignores a subject in the body", async () => {
		const { headers } = await userWithKey();
		const res = await call("POST", "/agent/chat", { headers, json: { prompt: "hi", subject: "someone-else", session: "s1" } });
		expect(res.status).toBe(200);
		const events = await readAll(res);
		expect(events.map((e) => e.frame.type)).toEqual(["error", "turn-complete"]);
	});

	it("replays a logged turn after Last-Event-ID without a new turn", async () => {
		const { headers } = await userWithKey();
		const first = await readAll(await call("POST", "/agent/api/chat", { headers, json: { prompt: "one", session: "s" } }));
		const firstId = first[0]?.id ?? 0;
		const again = await call("POST", "/agent/api/chat", {
			headers: { ...headers, "Last-Event-ID": String(firstId) },
			json: { prompt: "one", session: "s" },
		});
		expect(await readAll(again)).toEqual(first.slice(1));
		const byQuery = await call("POST", `/agent/chat?last_event_id=${firstId - 1}`, { headers, json: { prompt: "one", session: "s" } });
		expect(await readAll(byQuery)).toEqual(first);
		// After the last frame there is nothing more: the stream ends at once.
		const last = first.at(-1)?.id ?? 0;
		const none = await call("POST", "/agent/api/chat", {
			headers: { ...headers, "Last-Event-ID": String(last) },
			json: { prompt: "one", session: "s" },
		});
		expect(await readAll(none)).toEqual([]);
	});

	it("answers 422 with a detail for bad input, never 500", async () => {
		const { headers } = await userWithKey();
		const bad: [Record<string, unknown>, Record<string, string>?][] = [
			[{}],
			[{ prompt: "" }],
			[{ prompt: 42 }],
			[{ prompt: "x".repeat(32_001) }],
			[{ prompt: "hi", session: "has space" }],
			[{ prompt: "hi", session: "s".repeat(101) }],
			[{ prompt: "hi", session: "../etc" }],
			[{ prompt: "hi" }, { "Last-Event-ID": "abc" }],
			[{ prompt: "hi" }, { "Last-Event-ID": "-1" }],
		];
		for (const [body, extra] of bad) {
			const res = await call("POST", "/agent/api/chat", { headers: { ...headers, ...extra }, json: body });
			expect(res.status, JSON.stringify(body)).toBe(422);
			expect((await json(res)).detail).toBeTruthy();
		}
		const reset = await call("POST", "/agent/api/chat/reset", { headers, json: { session: "no spaces allowed" } });
		expect(reset.status).toBe(422);
		await reset.body?.cancel();
	});

	it("answers {turns: []} for the history of any session name that has none, never 422", async () => {
		const { headers } = await userWithKey();
		for (const name of ["bad%20name", "..%2Fetc", "%E2%9C%93", "s".repeat(101), "x".repeat(2000)]) {
			const res = await call("GET", `/agent/api/sessions/${name}/history`, { headers });
			expect(res.status, name).toBe(200);
			expect(await json(res)).toEqual({ turns: [] });
		}
	});

	it("resets a session with or without a body, and answers {turns: []} for a missing one", async () => {
		const { headers } = await userWithKey();
		expect(await json(await call("POST", "/agent/api/chat/reset", { headers, json: { session: "nothing-here" } }))).toEqual({ ok: true });
		expect(await json(await call("POST", "/agent/chat/reset", { headers }))).toEqual({ ok: true });
		expect(await json(await call("GET", "/agent/sessions/nothing-here/history", { headers }))).toEqual({ turns: [] });
	});

	it("keeps each user's agent apart", async () => {
		const a = await userWithKey();
		const b = await userWithKey();
		const events = await readAll(await call("POST", "/agent/api/chat", { headers: a.headers, json: { prompt: "mine" } }));
		const replay = await call("POST", "/agent/api/chat", { headers: { ...b.headers, "Last-Event-ID": "0" }, json: { prompt: "x" } });
		const seen = await readAll(replay);
		expect(seen.map((e) => e.frame.turn_id)).not.toContain(events[0]?.frame.turn_id);
	});

	it("documents chat as an event stream and the session routes in /openapi.json, under both prefixes", async () => {
		const doc = await json<{ paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> }>(
			await call("GET", "/openapi.json"),
		);
		for (const prefix of ["/agent/api", "/agent"]) {
			expect(Object.keys(doc.paths[`${prefix}/chat`]?.post?.responses["200"]?.content ?? {})).toEqual(["text/event-stream"]);
			expect(doc.paths[`${prefix}/chat/reset`]?.post).toBeDefined();
			expect(doc.paths[`${prefix}/sessions`]?.get).toBeDefined();
			expect(doc.paths[`${prefix}/sessions/{session}/history`]?.get).toBeDefined();
		}
	});
});
