/**
 * What each Durable Object serves over RPC. workerd serves every method on a class's prototype
 * to any stub (TypeScript's `private` and `protected` included), so each class keeps only its
 * RPC list there, plus the runtime's entry points; everything else is `#private` or lives in its parts.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_RPC, AccountObject } from "../../../durable-objects/account";
import { AGENT_USER_RPC, AgentUser } from "../../../durable-objects/agent-user";
import { IP_GUARD_RPC, IpGuard } from "../../../durable-objects/ip-guard";
import { LIVE_FEED_RPC, LiveFeed } from "../../../durable-objects/live-feed";
import { MEETING_ROOM_RPC, MeetingRoom } from "../../../durable-objects/meeting-room";
import { MEETING_STREAM_RPC, MeetingStream } from "../../../durable-objects/meeting-stream";
import { TRANSCRIPT_INDEX_RPC, TranscriptIndex } from "../../../durable-objects/transcript-index";
import { WORKSPACE_RPC, Workspace } from "../../../durable-objects/workspace";
import { getMeeting, liveMeeting } from "../meetings/helpers";
import { roomOf, userWithKey } from "../support";

/** Called by the runtime, not by stubs. */
const ENTRY_POINTS = new Set(["fetch", "alarm", "webSocketMessage", "webSocketClose", "webSocketError"]);

/**
 * Every Durable Object class: its RPC list, and helpers that once were (or could easily become)
 * prototype methods, which must stay off it. A new object adds its row here.
 */
const OBJECTS = [
	{
		name: "MeetingRoom",
		cls: MeetingRoom,
		rpc: MEETING_ROOM_RPC,
		helpers: [
			"state",
			"saveState",
			"applyMove",
			"sendCommand",
			"ref",
			"serial",
			"move",
			"finish",
			"letGo",
			"giveBack",
			"botGone",
			"runTimer",
		],
	},
	{
		name: "MeetingStream",
		cls: MeetingStream,
		rpc: MEETING_STREAM_RPC,
		helpers: ["append", "end", "finish", "start", "process", "ingest", "revalidate", "serial"],
	},
	{ name: "AccountObject", cls: AccountObject, rpc: ACCOUNT_RPC, helpers: ["admit", "armAlarm", "syncOutboxTimer"] },
	{
		name: "LiveFeed",
		cls: LiveFeed,
		rpc: LIVE_FEED_RPC,
		helpers: ["admitFrame", "subscribe", "unsubscribe", "dropUnwatched", "bindWaiting", "userId"],
	},
	{ name: "AgentUser", cls: AgentUser, rpc: AGENT_USER_RPC, helpers: ["timers", "routines", "runtime", "onTimer", "heartbeat"] },
	{
		name: "Workspace",
		cls: Workspace,
		rpc: WORKSPACE_RPC,
		helpers: ["serially", "seed", "kgFindings", "recordRoutineAuthors", "usage", "files", "repo"],
	},
	{ name: "IpGuard", cls: IpGuard, rpc: IP_GUARD_RPC, helpers: ["window"] },
	{ name: "TranscriptIndex", cls: TranscriptIndex, rpc: TRANSCRIPT_INDEX_RPC, helpers: ["pull", "rank", "pulling", "queued"] },
] as const;

describe("each Durable Object's RPC surface", () => {
	it.each(OBJECTS)("$name serves exactly its RPC list, plus the runtime's entry points", ({ cls, rpc }) => {
		const names = Object.getOwnPropertyNames(cls.prototype).filter((n) => n !== "constructor" && !ENTRY_POINTS.has(n));
		expect(names.sort()).toEqual([...rpc].sort());
	});

	it.each(OBJECTS)("$name keeps its helpers off the prototype, where RPC would reach them", ({ cls, helpers }) => {
		for (const helper of helpers) expect(helper in cls.prototype, helper).toBe(false);
	});

	it("keeps the room's insides off the prototype and still serves what stubs call", async () => {
		const { headers } = await userWithKey();
		const { meeting } = await liveMeeting(headers);
		expect(await roomOf(meeting.id).command({ action: "chat_send", text: "hi" })).toBe("relayed");
		expect((await getMeeting(headers, meeting.id)).status).toBe("active");
	});

	it("keeps the stream's log and copilot off the prototype and still serves what the room calls", async () => {
		const stream = env.MEETING_STREAM.get(env.MEETING_STREAM.newUniqueId());
		const line = { type: "transcript" as const, id: "s-1", speaker: "Alice", text: "hi", t: 1, tsMs: Date.now(), completed: true };
		expect(await stream.transcriptStored(line)).toBe(1);
		expect(await stream.transcriptStored({ ...line, id: "s-2" })).toBe(2);
		expect(await stream.copilotIngest()).toEqual({ segments: 0, last_segment_at: null });
	});
});
