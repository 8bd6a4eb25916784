/**
 * Limits that protect the shared bot host: bounded `automatic_leave` timeouts on POST /bots,
 * and a full host's refusal recorded on the meeting in the host's own words.
 */
import { describe, expect, it } from "vitest";
import { AUTOMATIC_LEAVE_MAX_MS } from "../../../src/bot-channel/protocol";
import { eventually } from "../meetings/bot-sim";
import { meetCode } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received, script } from "../webhooks/receiver";

interface Meeting {
	id: number;
	status: string;
	completion_reason: string | null;
	failure_stage: string | null;
	data: Record<string, unknown>;
}

const sendBot = (headers: Record<string, string>, body: Record<string, unknown>) => call("POST", "/bots", { headers, json: body });

describe("automatic_leave maxima", () => {
	it.each(Object.entries(AUTOMATIC_LEAVE_MAX_MS))("refuses %s above %d ms with 422 and creates nothing", async (field, max) => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const res = await sendBot(headers, { platform: "google_meet", native_meeting_id: code, automatic_leave: { [field]: max + 1 } });
		expect(res.status).toBe(422);
		const body = await json<{ detail: { loc: unknown[]; msg: string }[] }>(res);
		expect(JSON.stringify(body.detail)).toContain(field);
		expect(JSON.stringify(body.detail)).toContain(`at most ${max} ms`);
		const list = await json<{ meetings: unknown[] }>(await call("GET", "/meetings", { headers }));
		expect(list.meetings).toEqual([]);
		const spawns = await received("/bot-host/bots");
		expect(spawns.filter((r) => r.body.includes(code))).toEqual([]);
	});

	it("accepts every field at its maximum and hands it to the bot host", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const res = await sendBot(headers, { platform: "google_meet", native_meeting_id: code, automatic_leave: AUTOMATIC_LEAVE_MAX_MS });
		expect(res.status).toBe(201);
		const spawn = await eventually("the spawn", async () => (await received("/bot-host/bots")).find((r) => r.body.includes(code)));
		expect(JSON.parse(spawn.body).automatic_leave).toEqual(AUTOMATIC_LEAVE_MAX_MS);
	});
});

describe("a bot host at capacity", () => {
	it("fails the meeting with join_failure and the host's own reason", async () => {
		const hook = newHook();
		const { headers } = await userWithWebhook(hook.url, { events: { "bot.failed": true, "meeting.status_change": true } });
		const code = meetCode();
		const refusal = JSON.stringify({ error: "bot host is at capacity: 20 bots" });
		await script("/bot-host/bots", [{ status: 503, body: refusal, match: `"native_meeting_id":"${code}"` }]);
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: code }));
		const failed = await eventually("failed", async () => {
			const now = await json<Meeting>(await call("GET", `/meetings/${m.id}`, { headers }));
			return now.status === "failed" ? now : undefined;
		});
		expect(failed).toMatchObject({ completion_reason: "join_failure", failure_stage: "requested" });
		// The reason travels with the step to failed (webhooks, live feed), in the host's words.
		const step = await eventually("the failed step", async () => {
			for (const r of await received(hook.path)) {
				const change = JSON.parse(r.body).data?.status_change as { to: string; reason: string | null } | undefined;
				if (change?.to === "failed") return change;
			}
			return undefined;
		});
		expect(step.reason).toBe("bot host answered 503: bot host is at capacity: 20 bots");
	});
});
