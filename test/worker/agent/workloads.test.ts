import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { WorkloadView } from "../../../durable-objects/agent-user/workloads";
import type { Invocation } from "../../../src/agent/envelopes";
import { eventually } from "../../shared/wait";
import { userWithKey } from "../support";
import { agentUser, bodyOf, chat, script, sent } from "./helpers";
import { readAll } from "./sse";

const stub = (userId: number) => env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));
const caller = (userId: number) => ({ userId, scopes: ["bot", "tx"] as ("bot" | "tx")[], tokenId: 0 });

function invocation(userId: number, fields: Partial<Invocation>): Invocation {
	return {
		identity: { subject: String(userId), launcher: `user:${userId}` },
		runner: "claude-code",
		workspaces: [{ id: "home", mode: "rw" }],
		trigger: "scheduled",
		start: { entrypoint: { inline: "nothing" } },
		...fields,
	};
}

async function settled(userId: number, workloadId: string, runs: number): Promise<WorkloadView | null> {
	return eventually(`workload ${workloadId} ended after run ${runs}`, async () => {
		const w = await stub(userId).workload(workloadId);
		return w !== null && w.runs === runs && (w.status === "completed" || w.status === "failed") ? w : undefined;
	});
}

describe("agent workloads", () => {
	it("dispatches without waiting, runs to the end, and a second start refreshes the inputs and runs again with them", async () => {
		const { user } = await agentUser();
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["first ", "run ", "here"], delay_ms: 150 }, { text: ["second run"] }]);
		const start = { entrypoint: { inline: `Summarize the meeting ${marker}` } };
		const first = invocation(user.id, {
			start,
			context: { kind: "meeting", meeting: { meeting_id: "old-meeting", session_uid: "old-meeting" } },
		});
		const { workload_id } = await stub(user.id).dispatch(caller(user.id), first);
		expect(workload_id).toMatch(new RegExp(`^agent-${user.id}-scheduled-[0-9a-f]{12}$`));

		const fresh = invocation(user.id, {
			start,
			context: { kind: "meeting", meeting: { meeting_id: "new-meeting", session_uid: "new-meeting" } },
		});
		const again = await stub(user.id).dispatch(caller(user.id), fresh);
		expect(again.workload_id).toBe(workload_id);

		const view = await settled(user.id, workload_id, 2);
		expect(view).toMatchObject({
			workload_id,
			status: "completed",
			trigger: "scheduled",
			mode: "rw",
			launcher: `user:${user.id}`,
			context: { kind: "meeting", meeting: { meeting_id: "new-meeting" } },
			runs: 2,
			last: { ok: true, reply: "second run", detail: null },
		});
		expect(view?.events.filter((f) => f.type === "done")).toHaveLength(2);
		expect(view?.events.at(-1)?.type).toBe("turn-complete");

		const requests = await sent(marker);
		expect(requests).toHaveLength(2);
		expect(bodyOf(requests[0]).messages[0]?.content).toContain("old-meeting");
		// The rerun used the inputs of the second start, not the stale ones (the reference's #730).
		expect(bodyOf(requests[1]).messages[0]?.content).toContain("new-meeting");
		expect(bodyOf(requests[1]).messages[0]?.content).not.toContain("old-meeting");
	});

	it("derives the mode: rw only for a trusted trigger that asked to write", async () => {
		const { user } = await agentUser();
		const cases: [Partial<Invocation>, string][] = [
			[{ trigger: "event" }, "ro"],
			[{ trigger: "transcription" }, "ro"],
			[{ trigger: "scheduled", workspaces: [{ id: "home", mode: "ro" }] }, "ro"],
			[{ trigger: "message" }, "rw"],
		];
		for (const [fields, mode] of cases) {
			const marker = crypto.randomUUID();
			const outcome = await stub(user.id).runInvocation(
				caller(user.id),
				invocation(user.id, { ...fields, start: { entrypoint: { inline: marker } } }),
			);
			expect(outcome.ok).toBe(true);
			expect((await stub(user.id).workload(outcome.workload_id))?.mode, JSON.stringify(fields)).toBe(mode);
		}
	});

	it("fails what it cannot run, with a clear detail and no model call", async () => {
		const { user } = await agentUser();
		const plan = await stub(user.id).runInvocation(
			caller(user.id),
			invocation(user.id, { start: { entrypoint: { path: "plans/weekly.md" } } }),
		);
		expect(plan).toMatchObject({ ok: false, detail: 'Plan file "plans/weekly.md" not found in the workspace', retryable: false });
		expect(await stub(user.id).workload(plan.workload_id)).toMatchObject({ status: "failed", last: { ok: false } });

		const missing = await stub(user.id).runInvocation(caller(user.id), invocation(user.id, { start: { session: { ref: "never-was" } } }));
		expect(missing).toMatchObject({ workload_id: `agent-${user.id}-chat-never-was`, ok: false, retryable: false });
		expect(missing.detail).toContain("never-was");
	});

	it("continues an existing chat session for a session start", async () => {
		const { user, headers } = await agentUser();
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["noted"] }]);
		await readAll(await chat(headers, { prompt: `Remember the word kumquat ${marker}`, session: "notes" }));
		const outcome = await stub(user.id).runInvocation(
			caller(user.id),
			invocation(user.id, { trigger: "message", start: { session: { ref: "notes" } } }),
		);
		expect(outcome).toMatchObject({ workload_id: `agent-${user.id}-chat-notes`, ok: true });
		const history = (await stub(user.id).history("notes")).map((t) => t.role);
		expect(history).toEqual(["user", "agent", "user", "agent"]);
	});

	it("says whether a provider failure is worth a retry, and refuses without a model", async () => {
		const { user } = await agentUser();
		const marker = crypto.randomUUID();
		await script(marker, [{ status: 429 }, { status: 401 }]);
		const limited = await stub(user.id).runInvocation(
			caller(user.id),
			invocation(user.id, { start: { entrypoint: { inline: `a ${marker}` } } }),
		);
		expect(limited).toMatchObject({ ok: false, retryable: true });
		const refused = await stub(user.id).runInvocation(
			caller(user.id),
			invocation(user.id, { start: { entrypoint: { inline: `b ${marker}` } } }),
		);
		expect(refused).toMatchObject({ ok: false, retryable: false });

		const bare = await userWithKey();
		const noModel = await stub(bare.user.id).runInvocation(
			caller(bare.user.id),
			invocation(bare.user.id, { start: { entrypoint: { inline: `c ${marker}` } } }),
		);
		expect(noModel).toMatchObject({ ok: false, retryable: false });
		expect(noModel.detail).toContain("PUT /user/models");
		expect((await stub(bare.user.id).workload(noModel.workload_id))?.events.map((f) => f.type)).toEqual(["error", "turn-complete"]);
		expect(await sent(`c ${marker}`)).toEqual([]);
	});
});
