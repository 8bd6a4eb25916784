import { describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import { api, gateway, newAccount } from "./client";
import { modelRequests, modelServer, script } from "./model-script";
import { type Frame, frames } from "./sse";

/** An account whose own model is the local streaming server. */
async function accountWithModel() {
	const account = await newAccount();
	const put = await api("PUT", "/user/models", {
		key: account.key,
		json: { base_url: `${modelServer()}/v1`, model: "e2e-model", api_key: "e2e-model-key-0123" },
	});
	expect(put.status).toBe(200);
	return account;
}

const chat = (key: string, body: unknown, path = "/agent/chat") =>
	fetch(`${gateway()}${path}`, {
		method: "POST",
		// A browser asks for gzip; wrangler dev must still not compress (and so buffer) the stream.
		headers: { "X-API-Key": key, "content-type": "application/json", "accept-encoding": "gzip, deflate, br" },
		body: JSON.stringify(body),
	});

describe("the agent plane through wrangler dev", () => {
	it("streams a chat turn's frames while the model is still producing them, not buffered to the end", async () => {
		const { key } = await accountWithModel();
		const marker = `e2e-stream-${crypto.randomUUID()}`;
		// Two pieces of text, then the model holds the stream open: only a stream that is passed
		// through as it is produced can show them before the turn ends.
		await script(marker, [{ text: ["Hello", " there"], hang: true }]);
		const res = await chat(key, { prompt: `say hello ${marker}`, session: "e2e-stream" });
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
		expect(res.headers.get("content-encoding") ?? "identity").toBe("identity");
		const stream = frames(res);
		const seen: Frame[] = [];
		while (seen.filter((f) => f.type === "message-delta").length < 2) {
			const frame = await stream.next();
			if (!frame) throw new Error(`stream ended early after ${JSON.stringify(seen)}`);
			seen.push(frame);
		}
		await stream.cancel();
		expect(seen[0]?.type).toBe("turn-accepted");
		expect(seen.filter((f) => f.type === "message-delta").map((f) => f.text)).toEqual(["Hello", " there"]);
		expect(seen.some((f) => f.type === "done")).toBe(false);
		const ids = seen.map((f) => f.id);
		expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > (ids[i - 1] ?? 0)))).toBe(true);
	});

	it("completes a turn on the spec's path and lists its session", async () => {
		const { key } = await accountWithModel();
		const marker = `e2e-turn-${crypto.randomUUID()}`;
		await script(marker, [{ text: ["All", " done."] }]);
		const stream = frames(await chat(key, { prompt: `finish ${marker}`, session: "e2e-turn" }, "/agent/api/chat"));
		const seen: Frame[] = [];
		for (let f = await stream.next(); f; f = await stream.next()) seen.push(f);
		expect(seen.map((f) => f.type)).toEqual(["turn-accepted", "message-delta", "message-delta", "done", "turn-complete"]);
		expect(seen.find((f) => f.type === "done")).toMatchObject({ reply: "All done.", ok: true, sessionId: "e2e-turn" });
		expect((await modelRequests(marker))[0]?.body.model).toBe("e2e-model");
		const sessions = await api<{ sessions: { session: string; title: string }[] }>("GET", "/agent/sessions", { key });
		expect(sessions.body.sessions.map((s) => s.session)).toContain("e2e-turn");
	});

	it("fires a routine at its cron time from the user's agent object's alarm", async () => {
		const { key } = await accountWithModel();
		const marker = `e2e-routine-${crypto.randomUUID()}`;
		await script(marker, [{ text: ["Summary written."] }]);
		const created = await api("POST", "/agent/api/routines", {
			key,
			json: { name: "every minute", cron: "* * * * *", prompt: `summarize ${marker}`, run_now: false },
		});
		expect(created.status).toBe(201);
		expect(await modelRequests(marker)).toEqual([]);
		// The next whole minute: up to 60 s away, so this waits on the real alarm.
		await eventually("the routine's run at the model", async () => ((await modelRequests(marker)).length > 0 ? true : undefined), 75_000);
		const listed = await eventually("the run recorded", async () => {
			const res = await api<{ routines: { name: string; last_run: string | null; last_error: string | null }[] }>(
				"GET",
				"/agent/routines",
				{ key },
			);
			const routine = res.body.routines.find((r) => r.name === "every minute");
			return routine?.last_run ? routine : undefined;
		});
		expect(listed.last_error).toBeNull();
	});
});
