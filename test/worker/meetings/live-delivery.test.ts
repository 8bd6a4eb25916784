/**
 * Live delivery on the bot channel's hot path (docs/bot-fleet.md#live-fan-out): a segment
 * reaches /ws watchers as it arrives, without waiting behind the previous message's D1 write,
 * in the bot's order and once each, while the ack still waits until the segment is in D1.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { call, json, roomOf, sharedWorkspace, userWithKey } from "../support";
import { openSocket, type SocketClient } from "./bot-sim";
import { swapEnv } from "./broken-env";
import { createPlan, liveMeeting, meetUrl, segment } from "./helpers";

const ref = (native_id: string) => ({ platform: "google_meet", native_id });

async function watch(key: string, code: string): Promise<SocketClient> {
	const socket = await openSocket("/ws", { "X-API-Key": key });
	socket.send({ action: "subscribe", meetings: [ref(code)] });
	await socket.waitFor("subscribed", (m) => m.type === "subscribed");
	return socket;
}

/** The segment ids of the confirmed bundles a socket got, in arrival order. */
const confirmedIds = (socket: SocketClient) =>
	socket.messages.filter((m) => m.type === "transcript").flatMap((m) => (m.confirmed as { segment_id: string }[]).map((s) => s.segment_id));

/** A D1 whose transcript writes take `ms` longer (a slow write, as D1 under load). */
function slowSegmentWrites(db: D1Database, ms: number): D1Database {
	return new Proxy(db, {
		get(target, prop) {
			if (prop !== "prepare") {
				const value = Reflect.get(target, prop);
				return typeof value === "function" ? value.bind(target) : value;
			}
			return (sql: string) => {
				const statement = target.prepare(sql);
				if (!/INSERT INTO transcript_segments/.test(sql)) return statement;
				return {
					bind: (...args: unknown[]) => {
						const bound = statement.bind(...args);
						return {
							run: async () => {
								await new Promise((r) => setTimeout(r, ms));
								return bound.run();
							},
						};
					},
				};
			};
		},
	});
}

describe("live delivery ahead of storage", () => {
	it("delivers the next segment while the previous one's D1 write is still running, and acks each only once it is in D1", async () => {
		const { key, headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		const watcher = await watch(key, code);
		// One segment through the ordinary path first, so the room knows its watchers.
		await bot.send({ type: "segment", segment: segment({ segment_id: "s-1", text: "warm up" }) });
		await watcher.waitFor("s-1", () => confirmedIds(watcher).includes("s-1"));

		const restore = await swapEnv(roomOf(meeting.id), (e: Env) => ({ DB: slowSegmentWrites(e.DB, 1500) }));
		try {
			const seen: string[] = [];
			const acked = (seq: number) => bot.channel.messages.some((m) => m.type === "ack" && m.seq === seq);
			bot.channel.send({ type: "segment", segment: segment({ segment_id: "s-2", text: "slow write", start: 2, end: 3 }), seq: 3 });
			await watcher.waitFor("s-2", () => confirmedIds(watcher).includes("s-2"));
			bot.channel.send({ type: "segment", segment: segment({ segment_id: "s-3", text: "right after", start: 3, end: 4 }), seq: 4 });
			await watcher.waitFor("s-3", () => confirmedIds(watcher).includes("s-3"));
			// Both are out while the first of the two writes still runs: neither is acked yet.
			if (acked(3)) seen.push("ack 3 before s-3 arrived");
			if (acked(4)) seen.push("ack 4 before s-3 arrived");
			expect(seen).toEqual([]);
			await eventually("ack 4", () => (acked(4) ? true : undefined), 10_000);
			const rows = await env.DB.prepare("SELECT segment_id FROM transcript_segments WHERE meeting_id = ? ORDER BY start")
				.bind(meeting.id)
				.all<{ segment_id: string }>();
			expect(rows.results.map((r) => r.segment_id)).toEqual(["s-1", "s-2", "s-3"]);
		} finally {
			await restore();
		}
		expect(confirmedIds(watcher)).toEqual(["s-1", "s-2", "s-3"]);
		watcher.close();
	});

	it("keeps a burst in the bot's order, once each, for every watcher of every user, and stores all of it", async () => {
		const owner = await userWithKey();
		const member = await userWithKey();
		const workspace = await sharedWorkspace(owner.user.id, member.user.id);
		const code = meetCode();
		await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: workspace });
		const { bot } = await liveMeeting(owner.headers, code);
		const watchers = [await watch(owner.key, code), await watch(owner.key, code), await watch(member.key, code)];

		// Sent without waiting for acks: later ones arrive while earlier ones are still being stored.
		const ids = Array.from({ length: 40 }, (_, i) => `b-${i}`);
		ids.forEach((id, i) => {
			const speaker = i % 3 === 0 ? "Bob" : "Alice";
			bot.channel.send({
				type: "segment",
				segment: segment({ segment_id: id, speaker, text: `line ${i}`, start: i, end: i + 0.5 }),
				seq: 2 + i,
			});
		});
		await eventually(
			"the burst's last ack",
			() => (bot.channel.messages.some((m) => m.type === "ack" && m.seq === 41) ? true : undefined),
			15_000,
		);
		for (const watcher of watchers) {
			await eventually("every bundle", () => (confirmedIds(watcher).length >= ids.length ? true : undefined));
			expect(confirmedIds(watcher)).toEqual(ids);
		}
		const transcript = await json<{ segments: { segment_id: string }[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers: owner.headers }),
		);
		expect(transcript.segments.map((s) => s.segment_id)).toEqual(ids);
		for (const watcher of watchers) watcher.close();
	});

	it("keeps delivering to the watchers left after one drops mid-burst", async () => {
		const { key, headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		const staying = await watch(key, code);
		const leaving = await watch(key, code);
		const ids = Array.from({ length: 20 }, (_, i) => `d-${i}`);
		ids.forEach((id, i) => {
			if (i === 10) leaving.close();
			bot.channel.send({ type: "segment", segment: segment({ segment_id: id, text: `line ${i}`, start: i, end: i + 0.5 }), seq: 2 + i });
		});
		await eventually("every bundle", () => (confirmedIds(staying).length >= ids.length ? true : undefined));
		expect(confirmedIds(staying)).toEqual(ids);
		await eventually("the burst's last ack", () => (bot.channel.messages.some((m) => m.type === "ack" && m.seq === 21) ? true : undefined));
		staying.close();
	});

	it("delivers nothing twice for a message sent again, and nothing past a gap", async () => {
		const { key, headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		const watcher = await watch(key, code);
		await bot.send({ type: "segment", segment: segment({ segment_id: "r-1", text: "once" }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "r-2", text: "twice?", start: 1, end: 2 }) });
		// The same seq again on the same connection: acked again, not delivered again.
		bot.channel.send({ type: "segment", segment: segment({ segment_id: "r-2", text: "twice?", start: 1, end: 2 }), seq: 3 });
		await eventually("the second ack of 3", () =>
			bot.channel.messages.filter((m) => m.type === "ack" && m.seq === 3).length === 2 ? true : undefined,
		);
		// A seq past the next one: the bot is told to resend, and nothing of it goes out.
		bot.channel.send({ type: "segment", segment: segment({ segment_id: "r-gap", text: "too early", start: 5, end: 6 }), seq: 5 });
		await eventually("the room to close the channel", () => bot.channel.closed);
		// What the room sent the watcher's feed before it closed the channel is ahead of this pong.
		await watcher.pingPong();
		expect(confirmedIds(watcher)).toEqual(["r-1", "r-2"]);
		watcher.close();
	});
});
