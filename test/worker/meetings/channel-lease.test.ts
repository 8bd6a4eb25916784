/**
 * The room's channel lease (docs/status-machine.md#timers-that-move-a-meeting, `lease`): a bot's
 * channel can vanish without a close the room hears (the stack or the bot's host stopped and
 * started again). The lease, on the room's own alarm, finds the channel gone and starts the
 * reconnect grace, so the watchdog ends the meeting as for any lost host; a bot that pings and
 * goes silent is closed so that, if it is still there, it reconnects.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS, type RoomTimerName } from "../../../durable-objects/meeting-room/storage";
import { CHANNEL_PING, ROOM_CLOSE } from "../../../src/bot-channel/protocol";
import { meetCode } from "../../shared/meetings";
import { eventually, until } from "../../shared/wait";
import { roomOf, userWithKey } from "../support";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { swapEnv } from "./broken-env";
import { getMeeting, roomTimers, segment, sendBot } from "./helpers";

/** Makes one room timer due now and runs the room's alarm. */
async function fire(meetingId: number, name: RoomTimerName): Promise<void> {
	await runInDurableObject(roomOf(meetingId), async (_room: MeetingRoom, state) => {
		const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
		if (timers[name] === undefined) throw new Error(`the room has no ${name} timer: ${JSON.stringify(timers)}`);
		timers[name] = 0;
		await state.storage.put(ROOM_KEYS.timers, timers);
		await state.storage.setAlarm(Date.now());
	});
	await runDurableObjectAlarm(roomOf(meetingId));
}

/** A bot connected and reporting each of `statuses`. */
async function connectedBot(statuses: string[]) {
	const { headers } = await userWithKey();
	const meeting = await sendBot(headers, meetCode());
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	for (const status of statuses) await bot.status(status);
	return { headers, meeting, bot };
}

const STAGES = [
	{ stage: "joining", statuses: ["joining"], completion_reason: "join_failure" },
	{ stage: "awaiting_admission", statuses: ["joining", "awaiting_admission"], completion_reason: "awaiting_admission_timeout" },
	{ stage: "active", statuses: ["active"], completion_reason: null },
] as const;

describe("the room's channel lease", () => {
	it("checks an open channel and renews itself; a ping is answered with a pong without a seq", async () => {
		const { headers, meeting, bot } = await connectedBot(["active"]);
		const armed = (await roomTimers(meeting.id)).timers.lease;
		expect(armed).toBeGreaterThan(Date.now());
		// A bot of an earlier release never pings: its open channel is all the lease asks.
		await fire(meeting.id, "lease");
		bot.channel.socket.send(CHANNEL_PING);
		await bot.channel.waitFor("the pong", (m) => m.type === "pong");
		await fire(meeting.id, "lease");
		const { timers } = await roomTimers(meeting.id);
		expect(timers.lease).toBeGreaterThan(Date.now());
		expect(timers.watchdog).toBeUndefined();
		expect(bot.channel.closed).toBeUndefined();
		expect((await getMeeting(headers, meeting.id)).status).toBe("active");
		// The keepalive is outside the delivery: the next message still numbers on.
		await bot.send({ type: "segment", segment: segment({ segment_id: "after-ping", text: "Still here" }) });
	});

	it.each(STAGES)("ends a $stage meeting whose channel vanished unheard as a lost host", async ({ stage, statuses, completion_reason }) => {
		const { headers, meeting, bot } = await connectedBot([...statuses]);
		// The bot's process ends with the stack: its socket goes, and the close the room would have
		// heard is lost with the process that held it. The room wakes with its storage alone.
		bot.channel.close();
		await eventually("the close heard", async () => ((await roomTimers(meeting.id)).timers.watchdog ? true : undefined));
		await runInDurableObject(roomOf(meeting.id), async (_room: MeetingRoom, state) => {
			const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
			delete timers.watchdog;
			await state.storage.put(ROOM_KEYS.timers, timers);
		});
		expect(Object.keys((await roomTimers(meeting.id)).timers)).toContain("lease");
		expect((await getMeeting(headers, meeting.id)).status).toBe(stage);

		await fire(meeting.id, "lease");
		const { timers } = await roomTimers(meeting.id);
		// The reconnect grace, as for a close; the lease waits for the channel to open again.
		expect(timers.watchdog).toBeGreaterThan(Date.now() + 25_000);
		expect(timers.lease).toBeUndefined();
		expect((await getMeeting(headers, meeting.id)).status).toBe(stage);

		await fire(meeting.id, "watchdog");
		expect(await getMeeting(headers, meeting.id)).toMatchObject({
			status: "failed",
			completion_reason,
			failure_stage: stage,
			data: {
				failure_cause: "bot_host_lost",
				failure_detail: "the bot's channel stayed closed for more than 30 s (bot host test-host)",
			},
		});
		expect((await roomTimers(meeting.id)).timers.lease).toBeUndefined();
	});

	it("closes a bot that pinged and then went silent past the lease, so it reconnects or its grace runs out", async () => {
		const { headers, meeting, bot } = await connectedBot(["active"]);
		bot.channel.socket.send(CHANNEL_PING);
		await bot.channel.waitFor("the pong", (m) => m.type === "pong");
		const restore = await swapEnv(roomOf(meeting.id), () => ({ BOT_LEASE_S: "1" }));
		try {
			// Silent for longer than the (shortened) lease since its one ping.
			await new Promise((r) => setTimeout(r, 1_200));
			await fire(meeting.id, "lease");
		} finally {
			await restore();
		}
		await until("the silent channel closed", () => bot.channel.closed !== undefined);
		expect(bot.channel.closed?.code).toBe(ROOM_CLOSE.resend);
		expect((await roomTimers(meeting.id)).timers.watchdog).toBeGreaterThan(Date.now());
		// A bot still there comes back: the grace ends, the lease runs again, nothing moved.
		const back = await SimulatedBot.connect(bot.spawn, 1);
		const { timers } = await roomTimers(meeting.id);
		expect(timers.watchdog).toBeUndefined();
		expect(timers.lease).toBeGreaterThan(Date.now());
		expect(back.channel.closed).toBeUndefined();
		expect((await getMeeting(headers, meeting.id)).status).toBe("active");
	});
});
