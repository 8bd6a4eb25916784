/**
 * An auto-join whose bot no host claims leaves the plan visibly unchanged (the spec's States
 * table: "scheduled | auto-join sweep | spawn fails | unchanged, data.auto_join_error set,
 * retried after a backoff"): its step to `requested` is announced only once a host claims the
 * attempt, so webhooks and /ws never show `scheduled → requested → scheduled`. Read through the
 * public surface only: a webhook receiver, a /ws subscriber, GET /meetings/{id}.
 */
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { openSocket, SimulatedBot, type SocketClient, spawnRequestFor } from "../meetings/bot-sim";
import { createPlan, fireTimersNow, getMeeting, meetUrl } from "../meetings/helpers";
import { call } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received } from "../webhooks/receiver";

interface StatusChange {
	from: string | null;
	to: string | null;
	reason: string | null;
	transition_source: string;
}

/** A user with every status step sent to a fresh receiver, a /ws socket on the plan's link, and the plan. */
async function watchedPlan() {
	const hook = newHook();
	const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
	const code = meetCode();
	// Hours ahead, so auto-join waits for fireTimersNow: a timer due at once would fire on its own,
	// and zeroing the timers after that launch would expire its placement at once.
	const plan = await createPlan(headers, { meeting_url: meetUrl(code), scheduled_at: new Date(Date.now() + 2 * 3600_000).toISOString() });
	const watcher = await openSocket("/ws", { "X-API-Key": key });
	watcher.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
	await watcher.waitFor("subscribed", (m) => m.type === "subscribed");
	const changes = async (): Promise<StatusChange[]> =>
		(await received(hook.path))
			.map((r) => JSON.parse(r.body) as { event_type: string; data: { meeting: { id: number }; status_change?: StatusChange } })
			.filter((e) => e.event_type === "meeting.status_change" && e.data.meeting.id === plan.id)
			.map((e) => e.data.status_change as StatusChange);
	return { headers, code, plan, watcher, changes };
}

/** The statuses of the `meeting.status` frames a socket got, in order. */
const framedStatuses = (watcher: SocketClient) =>
	watcher.messages
		.filter((m) => m.type === "meeting.status")
		.map((m) => (m.payload as { status: string; data: Record<string, unknown> | null }).status);

describe("an auto-join no bot host claims", () => {
	it("leaves the plan visibly unchanged: no requested step on /ws or webhooks, scheduled with auto_join_error, retried", async () => {
		const { headers, plan, watcher, changes } = await watchedPlan();
		await fireTimersNow(plan.id);
		// The placement deadline passes with no claim: the plan is handed back.
		await fireTimersNow(plan.id);
		const error = "No bot host took the meeting within 180 s";
		const note = await watcher.waitFor<{ payload: { status: string; data: Record<string, unknown> } }>(
			"the auto_join_error note",
			(m) => m.type === "meeting.status" && (m.payload as { data?: { auto_join_error?: string } }).data?.auto_join_error === error,
		);
		expect(note.payload.status).toBe("scheduled");
		const noted = await eventually("the note's webhook", async () => {
			const all = await changes();
			return all.some((c) => c.reason === error) ? all : undefined;
		});
		// The only step the receiver saw after the plan was made: scheduled to scheduled, with the error.
		expect(noted.map((c) => [c.from, c.to, c.reason ?? null, c.transition_source])).toEqual([
			[null, "scheduled", null, "user_request"],
			["scheduled", "scheduled", error, "auto_join"],
		]);
		expect(framedStatuses(watcher)).toEqual(["scheduled"]);
		const back = await getMeeting(headers, plan.id);
		expect(back).toMatchObject({ status: "scheduled", completion_reason: null, data: { auto_join_error: error } });
		// Retried after a backoff: the retry launches again (still unannounced).
		await fireTimersNow(plan.id);
		expect((await getMeeting(headers, plan.id)).status).toBe("requested");
		expect(framedStatuses(watcher)).toEqual(["scheduled"]);
		watcher.close();
	});
});

describe("an auto-join a bot host claims", () => {
	it("announces scheduled → requested once, when the host claims it, before the bot's own reports", async () => {
		const { plan, watcher, changes } = await watchedPlan();
		await fireTimersNow(plan.id);
		// Launched and its ticket published, but no host has it yet: nothing is said.
		expect(framedStatuses(watcher)).toEqual([]);
		const bot = await SimulatedBot.connect(await spawnRequestFor(plan.id));
		await watcher.waitFor("requested", (m) => m.type === "meeting.status" && (m.payload as { status: string }).status === "requested");
		await bot.status("joining");
		await watcher.waitFor("joining", (m) => m.type === "meeting.status" && (m.payload as { status: string }).status === "joining");
		expect(framedStatuses(watcher)).toEqual(["requested", "joining"]);
		const steps = await eventually("both webhooks", async () => {
			const all = await changes();
			return all.length >= 3 ? all : undefined;
		});
		expect(steps.map((c) => [c.from, c.to, c.transition_source])).toEqual([
			[null, "scheduled", "user_request"],
			["scheduled", "requested", "auto_join"],
			["requested", "joining", "bot_callback"],
		]);
		watcher.close();
	});

	it("announces the held requested step before a stop that comes first, so the steps join up", async () => {
		const { headers, code, plan, watcher, changes } = await watchedPlan();
		await fireTimersNow(plan.id);
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		await watcher.waitFor("completed", (m) => m.type === "meeting.status" && (m.payload as { status: string }).status === "completed");
		expect(framedStatuses(watcher)).toEqual(["requested", "completed"]);
		const steps = await eventually("the stop's webhooks", async () => {
			const all = await changes();
			return all.length >= 3 ? all : undefined;
		});
		expect(
			steps.map((c) => [c.from, c.to]),
			JSON.stringify(steps),
		).toEqual([
			[null, "scheduled"],
			["scheduled", "requested"],
			["requested", "completed"],
		]);
		watcher.close();
	});
});
