/**
 * A bot whose meeting the room has ended without it (watchdog, stop deadline, spawn failure),
 * or given to a newer attempt on another host, must not stay in the call retrying its channel:
 * a refused upgrade with 409, or a close with the room's "meeting ended" or "superseded"
 * code, ends the session and the bot leaves.
 */
import { describe, expect, it } from "vitest";
import { spawnBot, useWorld, type World } from "./harness.ts";
import { statusesOf } from "./room.ts";

/** The session's end, or "still running" after `ms`. */
async function endedWithin(world: World, meetingId: number, ms: number): Promise<"ended" | "still running"> {
	const session = world.host.bots.get(meetingId);
	if (!session) return "ended";
	const timeout = new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), ms).unref());
	return Promise.race([session.finished.then(() => "ended" as const), timeout]);
}

describe("a bot whose room has ended the meeting", () => {
	const world = useWorld();

	it("leaves the call when its reconnect is refused with 409", async () => {
		const bot = await spawnBot(world, "google_meet", { direct_join: true, participants: [{ name: "Ana" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: false });
		world.room.refuseUpgrades(bot.meetingId, 409);
		world.room.dropConnections(bot.meetingId);
		expect(await endedWithin(world, bot.meetingId, 20_000)).toBe("ended");
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true });
		expect(world.logs).toContain("channel: the room has no live meeting (409)");
	});

	// The room answers an ended meeting with 409 only; any other refusal (410 here) is passing trouble.
	it("stays in the call and keeps reconnecting when refused with another status, such as 410", async () => {
		const bot = await spawnBot(world, "google_meet", { direct_join: true, participants: [{ name: "Dee" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		world.room.refuseUpgrades(bot.meetingId, 410);
		world.room.dropConnections(bot.meetingId);
		expect(await endedWithin(world, bot.meetingId, 2_000)).toBe("still running");
		world.room.allowUpgrades(bot.meetingId);
		await world.room.until(bot.meetingId, () => world.room.connections.filter((c) => c.meetingId === bot.meetingId).length >= 2);
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: false });
		expect(world.logs).not.toContain("channel: the room has no live meeting (410)");
	});

	it("leaves the call when the room closes the channel with its meeting-ended code", async () => {
		const bot = await spawnBot(world, "zoom", { direct_join: true, participants: [{ name: "Ben" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		world.room.endMeeting(bot.meetingId);
		expect(await endedWithin(world, bot.meetingId, 20_000)).toBe("ended");
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true });
		// It never came back: the only connection is the first one.
		expect(world.room.connections.filter((c) => c.meetingId === bot.meetingId)).toHaveLength(1);
	});

	it("leaves the call and does not reconnect when the room closes the channel as superseded", async () => {
		const bot = await spawnBot(world, "teams", { direct_join: true, participants: [{ name: "Cai" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		world.room.supersede(bot.meetingId);
		expect(await endedWithin(world, bot.meetingId, 20_000)).toBe("ended");
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true });
		expect(world.room.connections.filter((c) => c.meetingId === bot.meetingId)).toHaveLength(1);
		expect(world.logs).toContain("channel: a newer attempt took over the meeting (superseded)");
	});
});
