import { describe, expect, it } from "vitest";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { openSocket, type SocketClient } from "../meetings/bot-sim";
import { createPlan, meetUrl } from "../meetings/helpers";
import { call } from "../support";
import { deliveryRows, userWithWebhook } from "../webhooks/fixtures";
import { newHook, received } from "../webhooks/receiver";
import { calendar, connect, firstSync, newFeed, serveFeed, sync, utcIn, vevent } from "./feeds";

/** The calendar's plan steps are announced like everyone's (docs/status-machine.md, docs/webhooks.md, docs/live-feed.md). */

type Step = [string | null | undefined, string | null | undefined, string | undefined];

async function stepsAt(path: string): Promise<Map<number, Step[]>> {
	const steps = new Map<number, Step[]>();
	const envelopes = (await received(path)).map((r) => JSON.parse(r.body) as WebhookEnvelope);
	for (const e of envelopes.filter((e) => e.event_type === "meeting.status_change")) {
		const change = e.data.status_change;
		steps.set(e.data.meeting.id, [...(steps.get(e.data.meeting.id) ?? []), [change?.from, change?.to, change?.transition_source]]);
	}
	return steps;
}

const stepsOf = (path: string, meetingId: number, count: number) =>
	eventually(`${count} steps of meeting ${meetingId}`, async () => {
		const steps = (await stepsAt(path)).get(meetingId) ?? [];
		return steps.length >= count ? steps : undefined;
	});

const event = (uid: string, code: string, hours: number) =>
	vevent({ UID: uid, DTSTART: utcIn(hours), DURATION: "PT30M", SUMMARY: uid, LOCATION: meetUrl(code) });

async function subscribe(socket: SocketClient, code: string) {
	socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
	await socket.waitFor(`subscribed to ${code}`, (m) => m.type === "subscribed" && JSON.stringify(m.meetings).includes(code));
}

const framesOf = (socket: SocketClient, meetingId: number) =>
	socket.messages
		.filter((m) => m.type === "meeting.status" && (m.meeting as { id: number }).id === meetingId)
		.map((m) => (m.payload as { status: string }).status);

const frame = (socket: SocketClient, meetingId: number, status: string) =>
	eventually(`a ${status} frame for meeting ${meetingId}`, () => (framesOf(socket, meetingId).includes(status) ? true : undefined));

async function plansByCode(headers: Record<string, string>): Promise<Map<string, number>> {
	const res = await call("GET", "/meetings?limit=500", { headers });
	const { meetings } = (await res.json()) as { meetings: { id: number; native_meeting_id: string | null; status: string }[] };
	return new Map(meetings.filter((m) => m.status === "scheduled").map((m) => [m.native_meeting_id ?? "", m.id]));
}

describe("calendar plan steps", () => {
	it("announce each plan a sync makes as null → scheduled, and reach a socket holding its link", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const [first, second] = [meetCode(), meetCode()];
		const socket = await openSocket("/ws", { "X-API-Key": key });
		// The socket holds the link of an earlier meeting on it: the calendar's new plan there reaches it.
		const earlier = await createPlan(headers, { meeting_url: meetUrl(first), scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
		await subscribe(socket, first);
		expect((await call("DELETE", `/meetings/${earlier.id}`, { headers })).status).toBe(204);

		const feed = newFeed();
		await serveFeed(feed, calendar(event("first@x", first, 3), event("second@x", second, 4)));
		const cal = await connect(headers, feed);
		expect(firstSync(cal).counts).toMatchObject({ created: 2 });
		const plans = await plansByCode(headers);
		for (const code of [first, second]) {
			expect(await stepsOf(hook.path, plans.get(code) ?? 0, 1)).toEqual([[null, "scheduled", "calendar_sync"]]);
		}
		const envelope = (await received(hook.path))
			.map((r) => JSON.parse(r.body) as WebhookEnvelope)
			.find((e) => e.data.meeting.id === plans.get(first));
		expect(envelope?.data.meeting).toMatchObject({ status: "scheduled", native_meeting_id: first, data: { title: "first@x" } });
		await frame(socket, plans.get(first) ?? 0, "scheduled");
		socket.close();
	});

	it("announce the plan of an event gone from the feed as scheduled → null", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const [kept, dropped] = [meetCode(), meetCode()];
		const feed = newFeed();
		await serveFeed(feed, calendar(event("kept@x", kept, 3), event("dropped@x", dropped, 4)));
		const cal = await connect(headers, feed);
		const droppedId = (await plansByCode(headers)).get(dropped) ?? 0;
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await subscribe(socket, dropped);

		await serveFeed(feed, calendar(event("kept@x", kept, 3)));
		expect((await sync(headers, cal.id)).counts).toMatchObject({ cancelled: 1 });
		expect(await stepsOf(hook.path, droppedId, 2)).toContainEqual(["scheduled", null, "calendar_sync"]);
		await frame(socket, droppedId, "deleted");
		socket.close();
	});

	it("announce the plans a deleted calendar takes along as scheduled → null", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const code = meetCode();
		const feed = newFeed();
		await serveFeed(feed, calendar(event("only@x", code, 3)));
		const cal = await connect(headers, feed);
		const planId = (await plansByCode(headers)).get(code) ?? 0;
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await subscribe(socket, code);

		expect((await call("DELETE", `/user/calendars/${cal.id}`, { headers })).status).toBe(204);
		expect(await stepsOf(hook.path, planId, 2)).toContainEqual(["scheduled", null, "calendar_sync"]);
		await frame(socket, planId, "deleted");
		expect(framesOf(socket, planId)).toEqual(["deleted"]);
		socket.close();
	});

	it("keep to the account's event filter: by default a calendar's steps are suppressed, not sent", async () => {
		const hook = newHook();
		const { headers, user } = await userWithWebhook(hook.url);
		const feed = newFeed();
		await serveFeed(feed, calendar(event("filtered@x", meetCode(), 3)));
		const cal = await connect(headers, feed);
		expect(firstSync(cal).counts).toMatchObject({ created: 1 });
		const rows = await eventually("the suppressed attempt", async () => {
			const all = await deliveryRows(user.id);
			return all.length > 0 ? all : undefined;
		});
		expect(rows.map((r) => [r.event_type, r.outcome])).toEqual([["meeting.status_change", "suppressed"]]);
		expect(await received(hook.path)).toEqual([]);
	});

	it("announce an idle manual plan that an event adopts as idle → scheduled by the calendar", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const code = meetCode();
		const plan = await createPlan(headers, { meeting_url: meetUrl(code) });
		expect(plan.status).toBe("idle");
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await subscribe(socket, code);

		const feed = newFeed();
		await serveFeed(feed, calendar(event("adopts@x", code, 5)));
		const cal = await connect(headers, feed);
		expect(firstSync(cal).counts).toMatchObject({ created: 0, updated: 1 });
		expect(await stepsOf(hook.path, plan.id, 2)).toEqual([
			[null, "idle", "user_request"],
			["idle", "scheduled", "calendar_sync"],
		]);
		await frame(socket, plan.id, "scheduled");
		socket.close();
	});
});
