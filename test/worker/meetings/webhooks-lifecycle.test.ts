import { describe, expect, it } from "vitest";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import { verifyWebhook } from "../../../src/webhooks/signature";
import { meetCode } from "../../shared/meetings";
import { eventually, until } from "../../shared/wait";
import { call, json } from "../support";
import type { DeliveryRowView } from "../webhooks/fixtures";
import { HOOK_SECRET, userWithWebhook } from "../webhooks/fixtures";
import { newHook, type ReceivedRequest, received } from "../webhooks/receiver";
import { publishedTicket, SimulatedBot, spawnRequestFor } from "./bot-sim";
import { createPlan, getMeeting, meetUrl, segment, sendBot } from "./helpers";

const ALL_EVENTS = { "meeting.started": true, "meeting.completed": true, "bot.failed": true, "meeting.status_change": true };

type Delivery = DeliveryRowView & { created_at: string };

const envelopes = (requests: ReceivedRequest[]) => requests.map((r) => JSON.parse(r.body) as WebhookEnvelope);
const ofType = (list: WebhookEnvelope[], type: string) => list.filter((e) => e.event_type === type);

/** Waits until the receiver holds `count` deliveries at `path`. */
function deliveriesAt(path: string, count: number) {
	return eventually(`${count} webhook deliveries`, async () => {
		const requests = await received(path);
		return requests.length >= count ? requests : undefined;
	});
}

async function deliveryRows(headers: Record<string, string>): Promise<Delivery[]> {
	return (await json<{ deliveries: Delivery[] }>(await call("GET", "/user/webhook/deliveries", { headers }))).deliveries;
}

describe("webhooks through a meeting's lifecycle", () => {
	it("sends signed status_change per step, started and completed once, with the meeting and never the transcript", async () => {
		const hook = newHook();
		const { headers, user } = await userWithWebhook(hook.url, { events: ALL_EVENTS });
		const code = meetCode();
		const plan = await createPlan(headers, { title: "Board review", meeting_url: meetUrl(code) });
		const meeting = await sendBot(headers, code);
		expect(meeting.id).toBe(plan.id);
		const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
		for (const status of ["joining", "awaiting_admission", "active"]) await bot.status(status);
		await bot.send({ type: "segment", segment: segment({ text: "CONFIDENTIAL-TRANSCRIPT-TEXT" }) });
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		await bot.status("completed");

		// idle (created), requested, joining, awaiting_admission, active, stopping, completed + started + completed
		// The room hands its events over in step order, each once the one before was attempted: with the last
		// step's meeting.completed in, no earlier event is still on its way.
		const requests = await eventually("meeting.completed, the last step's event", async () => {
			const got = await received(hook.path);
			return got.length >= 9 && got.some((r) => r.body.includes('"event_type":"meeting.completed"')) ? got : undefined;
		});
		const all = await received(hook.path);
		expect(all).toHaveLength(9);
		for (const r of all) {
			expect(r.method).toBe("POST");
			expect(r.headers["content-type"]).toBe("application/json");
			expect(await verifyWebhook(HOOK_SECRET, r.headers, r.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
			expect(await verifyWebhook("not-the-secret", r.headers, r.body, { toleranceSeconds: 300 })).toMatchObject({ ok: false });
			expect(r.body).not.toContain("CONFIDENTIAL-TRANSCRIPT-TEXT");
			expect(r.body).not.toContain(HOOK_SECRET);
		}
		const sent = envelopes(requests);
		const steps = ofType(sent, "meeting.status_change")
			.map((e) => e.data.status_change)
			.sort((a, b) => (a?.timestamp ?? "").localeCompare(b?.timestamp ?? ""));
		expect(steps.map((s) => [s?.from, s?.to])).toEqual([
			[null, "idle"],
			["idle", "requested"],
			["requested", "joining"],
			["joining", "awaiting_admission"],
			["awaiting_admission", "active"],
			["active", "stopping"],
			["stopping", "completed"],
		]);
		expect(steps.map((s) => s?.transition_source)).toEqual([
			"user_request",
			"user_request",
			"bot_callback",
			"bot_callback",
			"bot_callback",
			"user_request",
			"bot_callback",
		]);
		expect(ofType(sent, "meeting.started")).toHaveLength(1);
		expect(ofType(sent, "meeting.completed")).toHaveLength(1);
		expect(ofType(sent, "bot.failed")).toHaveLength(0);
		expect(new Set(sent.map((e) => e.event_id)).size).toBe(sent.length);

		const completed = ofType(sent, "meeting.completed")[0]!;
		expect(Object.keys(completed).sort()).toEqual(["api_version", "created_at", "data", "event_id", "event_type"]);
		expect(completed.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
		expect(completed.data.meeting).toMatchObject({
			id: meeting.id,
			user_id: user.id,
			platform: "google_meet",
			native_meeting_id: code,
			constructed_meeting_url: meetUrl(code),
			status: "completed",
			completion_reason: "stopped",
			failure_stage: null,
			data: { title: "Board review" },
		});
		const final = await getMeeting(headers, meeting.id);
		expect(completed.data.meeting.start_time).toBe(final.start_time);
		expect(completed.data.meeting.end_time).toBe(final.end_time);
		expect(Object.keys(completed.data.meeting)).not.toContain("segments");
		expect(ofType(sent, "meeting.started")[0]?.data.meeting).toMatchObject({ id: meeting.id, status: "active" });

		// The history row is written once the receiver has answered: wait for all of them.
		const rows = await eventually("nine delivery rows", async () => {
			const r = await deliveryRows(headers);
			return r.length >= 9 ? r : undefined;
		});
		expect(rows).toHaveLength(9);
		for (const row of rows) {
			expect(row).toMatchObject({ target_host: "127.0.0.1", outcome: "delivered", status_code: 200, attempt: 1, meeting_id: meeting.id });
			expect(JSON.stringify(row)).not.toContain("/hooks/");
			expect(JSON.stringify(row)).not.toContain(HOOK_SECRET);
		}
		expect(new Set(rows.map((r) => r.event_id))).toEqual(new Set(sent.map((e) => e.event_id)));
	});

	it("delivers only meeting.completed under the default filter, recording the rest as suppressed", async () => {
		const hook = newHook();
		const { headers } = await userWithWebhook(hook.url);
		const code = meetCode();
		const meeting = await sendBot(headers, code);
		const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
		await bot.status("active");
		await call("DELETE", `/bots/google_meet/${code}`, { headers });
		await bot.status("completed");

		const [only] = await deliveriesAt(hook.path, 1);
		// Recorded in step order: once the last step's meeting.completed is, every event before it was attempted.
		const rows = await eventually("every event recorded", async () => {
			const r = await deliveryRows(headers);
			return r.length >= 6 && r.some((row) => row.event_type === "meeting.completed" && row.outcome === "delivered") ? r : undefined;
		});
		expect(await received(hook.path)).toHaveLength(1);
		expect(JSON.parse(only!.body)).toMatchObject({ event_type: "meeting.completed", data: { meeting: { id: meeting.id } } });
		expect(await verifyWebhook(HOOK_SECRET, only!.headers, only!.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
		const byOutcome = (outcome: string) => rows.filter((r) => r.outcome === outcome).map((r) => r.event_type);
		expect(byOutcome("delivered")).toEqual(["meeting.completed"]);
		expect(byOutcome("suppressed").sort()).toEqual([
			"meeting.started",
			"meeting.status_change",
			"meeting.status_change",
			"meeting.status_change",
			"meeting.status_change",
		]);
	});

	it("raises bot.failed when the host denies the bot, and not meeting.completed", async () => {
		const hook = newHook();
		const { headers } = await userWithWebhook(hook.url, { events: { "bot.failed": true } });
		const meeting = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
		await bot.status("awaiting_admission");
		await bot.status("failed", { completion_reason: "awaiting_admission_rejected", reason: "host denied entry" });

		const [failed] = await deliveriesAt(hook.path, 1);
		// Every event of the three steps recorded (the status changes suppressed by the filter): none is still on its way.
		await until("every event recorded", async () => {
			const rows = await deliveryRows(headers);
			return rows.filter((r) => r.event_type === "meeting.status_change").length >= 3 && rows.some((r) => r.event_type === "bot.failed");
		});
		expect(await received(hook.path)).toHaveLength(1);
		expect(await verifyWebhook(HOOK_SECRET, failed!.headers, failed!.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
		const envelope = JSON.parse(failed!.body) as WebhookEnvelope;
		expect(envelope).toMatchObject({
			event_type: "bot.failed",
			data: {
				meeting: {
					id: meeting.id,
					status: "failed",
					completion_reason: "awaiting_admission_rejected",
					failure_stage: "awaiting_admission",
				},
				status_change: { from: "awaiting_admission", to: "failed", reason: "host denied entry", transition_source: "bot_callback" },
			},
		});
	});

	it("reports an auto-join as a scheduled → requested step from auto_join once a host claims it", async () => {
		const hook = newHook();
		const { headers } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const plan = await createPlan(headers, {
			meeting_url: meetUrl(meetCode()),
			scheduled_at: new Date(Date.now() + 30_000).toISOString(),
		});
		// Auto-join fires at once (30 s ahead is inside its 60 s lead); its step goes out with the claim.
		await eventually("the auto-join's ticket", () => publishedTicket(plan.id));
		await spawnRequestFor(plan.id);
		const step = (await deliveriesAt(hook.path, 2)).find((r) => r.body.includes('"to":"requested"'));
		expect(await verifyWebhook(HOOK_SECRET, step!.headers, step!.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
		expect(JSON.parse(step!.body)).toMatchObject({
			event_type: "meeting.status_change",
			data: {
				meeting: { id: plan.id, status: "requested" },
				status_change: { from: "scheduled", to: "requested", transition_source: "auto_join" },
			},
		});
		expect((await getMeeting(headers, plan.id)).status).toBe("requested");
	});
});
