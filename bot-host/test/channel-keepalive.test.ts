/**
 * The bot's keepalive on its channel (docs/bot-channel.md#keepalive): while connected it pings
 * every CHANNEL_PING_S, outside the seq numbering, and takes the room's pong quietly; the room's
 * lease counts a bot that stops pinging as gone.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CHANNEL_PING_S } from "../../src/bot-channel/protocol.ts";
import { until } from "../../test/shared/wait.ts";
import { BotChannel } from "../bot/channel.ts";
import { FakeRoom } from "./room.ts";

describe("the bot channel's keepalive", () => {
	const cleanups: (() => Promise<void> | void)[] = [];
	afterEach(async () => {
		for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
	});

	it("pings while connected, never numbers a ping, and reads the pong as nothing", async () => {
		const room = await FakeRoom.start("keepalive-token");
		cleanups.push(() => room.close());
		const logged: string[] = [];
		const channel = new BotChannel({ url: room.url(7), token: "keepalive-token", onCommand: () => {}, log: (line) => logged.push(line) });
		cleanups.push(() => channel.close());
		channel.start();
		channel.send({ type: "status", status: "joining", timestamp: new Date().toISOString() });
		await until("two pings", () => room.pings(7) >= 2, (2 * CHANNEL_PING_S + 5) * 1000);
		// The pings are outside the delivery: the room got the hello and one numbered status, nothing more.
		expect(room.received(7).map((m) => m.type)).toEqual(["hello", "status"]);
		expect(channel.pending).toBe(0);
		expect(logged.filter((line) => line.includes("unknown frame") || line.includes("not JSON"))).toEqual([]);
	}, 30_000);
});
