/**
 * Each Durable Object's storage.ts names everything it keeps, in one form: `{ keys, tables }`.
 * These tests use each object for real and compare what its storage then holds (SQL tables,
 * keys) with its map, so a table or a key added without its entry fails here.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_STORAGE } from "../../../durable-objects/account/storage";
import { AGENT_USER_STORAGE } from "../../../durable-objects/agent-user/storage";
import { IP_GUARD_STORAGE } from "../../../durable-objects/ip-guard/storage";
import { LIVE_FEED_STORAGE } from "../../../durable-objects/live-feed/storage";
import { ROOM_STORAGE } from "../../../durable-objects/meeting-room/storage";
import { STREAM_STORAGE } from "../../../durable-objects/meeting-stream/storage";
import { TRANSCRIPT_INDEX_STORAGE } from "../../../durable-objects/transcript-index/storage";
import { WORKSPACE_STORAGE } from "../../../durable-objects/workspace/storage";
import { meetCode } from "../../shared/meetings";
import { openSocket } from "../meetings/bot-sim";
import { liveMeeting, segment } from "../meetings/helpers";
import { searchUntil } from "../search/search-helpers";
import { roomOf, streamOf, userWithKey } from "../support";

interface StorageMap {
	keys: Record<string, string>;
	tables: Record<string, string>;
}

/** The object's own SQL tables (not SQLite's or the runtime's), and its keys. */
async function held(stub: DurableObjectStub): Promise<{ tables: string[]; keys: string[] }> {
	return runInDurableObject(stub, async (_object, state) => ({
		tables: state.storage.sql
			.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
			.toArray()
			.map((row) => row.name)
			.filter((name) => !name.startsWith("sqlite_") && !name.startsWith("_cf_"))
			.sort(),
		keys: [...(await state.storage.list()).keys()],
	}));
}

/** Every table is in the map and every map table exists; every key is a mapped key or starts with a mapped prefix. */
function expectMapped(found: { tables: string[]; keys: string[] }, map: StorageMap) {
	expect(found.tables).toEqual(Object.values(map.tables).sort());
	const names = Object.values(map.keys);
	for (const key of found.keys)
		expect(
			names.some((name) => key === name || key.startsWith(name)),
			key,
		).toBe(true);
}

const byName = <T extends Rpc.DurableObjectBranded | undefined>(ns: DurableObjectNamespace<T>, name: string) => ns.get(ns.idFromName(name));

describe("each object's storage map", () => {
	it("AccountObject: bot slots, tickets, the webhook outbox and its timers", async () => {
		const { user } = await userWithKey();
		const account = byName(env.ACCOUNT, String(user.id));
		expect(await account.claimBotSlot(`google_meet:${meetCode()}`, 1)).toEqual({ ok: true });
		await account.issueTicket("a-ticket-hash", { tokenId: 1, expiresAt: Date.now() + 60_000 });
		const found = await held(account);
		expectMapped(found, ACCOUNT_STORAGE);
		expect(found.keys).toContain(ACCOUNT_STORAGE.keys.botSlots);
		expect(found.keys).toContain(`${ACCOUNT_STORAGE.keys.ticketPrefix}a-ticket-hash`);
	});

	it("AgentUser: its tables, all made when the object starts", async () => {
		const { user } = await userWithKey();
		const agent = byName(env.AGENT_USER, String(user.id));
		expect(await agent.sessions()).toEqual([]);
		const found = await held(agent);
		expectMapped(found, AGENT_USER_STORAGE);
		expect(found.keys).toEqual([]);
	});

	it("Workspace: its tables and its git files", async () => {
		const workspace = byName(env.WORKSPACE, `storage-map-${crypto.randomUUID()}`);
		await workspace.init("storage-map", { name: "Ada", email: "ada@example.com" });
		const found = await held(workspace);
		expectMapped(found, WORKSPACE_STORAGE);
		expect(found.keys).toEqual([]);
	});

	it("LiveFeed: a socket's subscriptions, its waiting links and the user's streams", async () => {
		const { user, key } = await userWithKey();
		const socket = await openSocket("/ws", { "X-API-Key": key });
		socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: meetCode() }] });
		await socket.waitFor("subscribed", (m) => m.type === "subscribed");
		const feed = byName(env.LIVE_FEED, String(user.id));
		await feed.streamOpened(user.id, 1);
		const found = await held(feed);
		expectMapped(found, LIVE_FEED_STORAGE);
		for (const name of Object.values(LIVE_FEED_STORAGE.keys))
			expect(
				found.keys.some((k) => k.startsWith(name)),
				name,
			).toBe(true);
		socket.close();
	});

	it("IpGuard: the ban of an IP that kept sending after it was refused", async () => {
		const guard = byName(env.IP_GUARD, `203.0.113.${Math.floor(Math.random() * 250)}-${crypto.randomUUID()}`);
		for (let i = 0; i < 12; i++) await guard.admit(0, 60);
		const found = await held(guard);
		expectMapped(found, IP_GUARD_STORAGE);
		expect(found.keys).toEqual([IP_GUARD_STORAGE.keys.bannedUntil]);
	});

	it("MeetingRoom and MeetingStream: a meeting's state, timers and watchers; its stream's log", async () => {
		const { headers, key } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
		await socket.waitFor("subscribed", (m) => m.type === "subscribed");
		await bot.send({ type: "segment", segment: segment({ text: "mapped words" }) });
		await bot.status("completed", { completion_reason: "left_alone" });
		const room = await held(roomOf(meeting.id));
		expectMapped(room, ROOM_STORAGE);
		for (const name of [
			ROOM_STORAGE.keys.state,
			ROOM_STORAGE.keys.timers,
			ROOM_STORAGE.keys.subscribers,
			ROOM_STORAGE.keys.screenshotOwner,
		])
			expect(room.keys, name).toContain(name);
		const stream = await held(streamOf(meeting.id));
		expectMapped(stream, STREAM_STORAGE);
		expect(stream.tables).toEqual([STREAM_STORAGE.tables.events]);
		socket.close();
	});

	it("TranscriptIndex: a scope's searchable segments, their meetings, and how far it has pulled", async () => {
		const { headers, user } = await userWithKey();
		const { bot } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "mapped words" }) });
		await searchUntil(headers, { q: "mapped" }, 1);
		const found = await held(byName(env.TRANSCRIPT_INDEX, `u:${user.id}`));
		expectMapped(found, TRANSCRIPT_INDEX_STORAGE);
		expect(found.keys).toEqual([]);
	});
});
