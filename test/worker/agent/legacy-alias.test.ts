/**
 * The legacy `/api/*` alias of the agent plane (docs/agent.md): the spec says it still resolves
 * at the gateway. It answers as `/agent/api` does, with the same access rules.
 */
import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";
import { readAll } from "./sse";

describe("the legacy /api alias", () => {
	it("serves chat, sessions, history and the workspace as /agent/api does", async () => {
		const { headers } = await userWithKey();
		const chat = await call("POST", "/api/chat", { headers, json: { prompt: "hi", session: "legacy" } });
		expect(chat.status).toBe(200);
		expect(chat.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
		expect((await readAll(chat)).map((e) => e.frame.type)).toEqual(["error", "turn-complete"]);
		expect(await json(await call("GET", "/api/sessions", { headers }))).toEqual({ sessions: [] });
		expect(await json(await call("GET", "/api/sessions/legacy/history", { headers }))).toEqual({ turns: [] });
		expect((await call("POST", "/api/workspace/init", { headers })).status).toBe(201);
		const tree = await json<{ files: string[] }>(await call("GET", "/api/workspace/tree", { headers }));
		expect(tree.files).toContain("CLAUDE.md");
		expect(tree).toEqual(await json(await call("GET", "/agent/api/workspace/tree", { headers })));
	});

	it("keeps the access rules: a key is needed, a browser key is refused, and what acts takes bot", async () => {
		expect((await call("GET", "/api/models")).status).toBe(401);
		const browser = await userWithKey("browser");
		const refused = await call("GET", "/api/models", { headers: browser.headers });
		expect(refused.status).toBe(403);
		expect(await refused.json()).toEqual({
			detail:
				'Token scope not authorized for this endpoint: this API key lacks the "bot" or "tx" scope needed for GET /api/models; it has: browser',
		});
		const tx = await userWithKey("tx");
		expect((await call("GET", "/api/models", { headers: tx.headers })).status).toBe(200);
		for (const [path, body] of [
			["/api/routines", { name: "Daily", cron: "0 9 * * *", prompt: "x" }],
			["/api/meeting/process", { native_id: "abc-defg-hij", platform: "google_meet", on: true }],
		] as const) {
			const res = await call("POST", path, { headers: tx.headers, json: body });
			expect(res.status, path).toBe(403);
			await res.body?.cancel();
		}
	});

	it("answers 404 for a path under /api that is not an agent route", async () => {
		const { headers } = await userWithKey();
		for (const path of ["/api/meetings", "/api/bots/status", "/api/nothing"]) {
			const res = await call("GET", path, { headers });
			expect(res.status, path).toBe(404);
			expect(await res.json()).toEqual({ detail: "Not Found" });
		}
	});
});
