import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AgentRuntime, HEARTBEAT_TIMER } from "../../../durable-objects/agent-user/runtime";
import { AGENT_USER_STORAGE } from "../../../durable-objects/agent-user/storage";
import { AgentStore } from "../../../durable-objects/agent-user/store";
import { agentTimers } from "../../../durable-objects/agent-user/timers";
import type { AgentFrame } from "../../../src/agent/frames";
import type { Env } from "../../../src/env";
import { until } from "../../shared/wait";
import { agentUser, chat, script } from "./helpers";
import { SseReader } from "./sse";

const freshObject = () => env.AGENT_USER.get(env.AGENT_USER.idFromName(`store-${crypto.randomUUID()}`));
const delta = (turnId: string, text: string): AgentFrame => ({ type: "message-delta", text, turn_id: turnId });

describe("agent store", () => {
	it("keeps the newest events past the bound, but every event of a running turn", async () => {
		await runInDurableObject(freshObject(), (_instance, state) => {
			const store = new AgentStore(state.storage.sql);
			const now = Date.now();
			store.startTurn({ turnId: "running", session: "s", workloadId: null, prompt: "p", nonce: null, now });
			const runningSeq = store.append(delta("running", "kept"), "s", null, now).seq;
			const seqs = Array.from({ length: 10 }, (_, i) => store.append(delta("old", String(i)), "s", null, now).seq);
			store.pruneEvents(3);
			const left = store.eventsAfter("s", 0).map((e) => e.seq);
			expect(left).toEqual([runningSeq, ...seqs.slice(-3)]);
		});
	});

	it("never hands out a sequence number twice, even after a reset removed the newest events", async () => {
		await runInDurableObject(freshObject(), (_instance, state) => {
			const store = new AgentStore(state.storage.sql);
			const now = Date.now();
			store.startTurn({ turnId: "t1", session: "s", workloadId: null, prompt: "p", nonce: null, now });
			store.endTurn("t1", { reply: "r", ok: true, detail: null, ops: [], messages: [], taint: null, now });
			const last = store.append(delta("t1", "x"), "s", null, now).seq;
			store.resetSession("s");
			expect(store.eventsAfter("s", 0)).toEqual([]);
			expect(store.append(delta("t2", "y"), "s", null, now).seq).toBeGreaterThan(last);
		});
	});

	it("ends a turn cut off by a restart as failed, so a reattached stream and the history say so", async () => {
		await runInDurableObject(freshObject(), (_instance, state) => {
			const store = new AgentStore(state.storage.sql);
			store.startTurn({ turnId: "cut", session: "s", workloadId: null, prompt: "hello", nonce: null, now: Date.now() });
			// A new runtime on the same storage is what the object builds after an eviction.
			const runtime = new AgentRuntime(state.storage, env as Env, agentTimers(state.storage), async () => []);
			const frames = store.turnEvents("cut").map((e) => e.frame);
			expect(frames.map((f) => f.type)).toEqual(["done", "turn-complete"]);
			expect(frames[0]).toMatchObject({ ok: false, sessionId: "s" });
			expect(runtime.history("s")).toEqual([
				{ role: "user", text: "hello" },
				{ role: "agent", text: expect.stringContaining("interrupted"), ok: false, ops: [] },
			]);
			expect(store.runningTurn("s")).toBeNull();
		});
	});

	it("keeps a heartbeat timer while a turn runs, beats it again when it fires, and clears it after", async () => {
		const { headers, user } = await agentUser();
		const stub = env.AGENT_USER.get(env.AGENT_USER.idFromName(String(user.id)));
		const heartbeat = () => runInDurableObject(stub, (_instance, state) => agentTimers(state.storage).due(HEARTBEAT_TIMER));
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["slow ", "turn ", "here"], delay_ms: 200 }]);
		const reader = new SseReader(await chat(headers, { prompt: `heartbeat ${marker}` }));
		await reader.until("message-delta");
		const due = await heartbeat();
		expect(due).toBeGreaterThan(0);
		// Fired early (the alarm runs now): a running turn sets it again for a later time.
		await runInDurableObject(stub, (_instance, state) =>
			state.storage.sql.exec(`UPDATE ${AGENT_USER_STORAGE.tables.alarmTimers} SET due_ms = 0 WHERE name = ?`, HEARTBEAT_TIMER),
		);
		expect(await runDurableObjectAlarm(stub)).toBe(true);
		expect(await heartbeat()).toBeGreaterThan(Date.now());
		await reader.until("turn-complete");
		await reader.cancel();
		await until("the heartbeat cleared after the turn", async () => (await heartbeat()) === undefined);
		expect(await heartbeat()).toBeUndefined();
	});
});
