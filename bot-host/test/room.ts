/** The tests' room is the local room (../local-room.ts); these read what a bot sent through it. */
import type { BotToRoom } from "../../src/bot-channel/protocol.ts";

export { LocalRoom as FakeRoom, type RoomConnection, type StoredScreenshot } from "../local-room.ts";

export type Status = Extract<BotToRoom, { type: "status" }>;
export type Segment = Extract<BotToRoom, { type: "segment" }>["segment"];

/** Each sequenced message once, as the room applies them (a re-send is dropped). */
export const applied = (received: BotToRoom[]): BotToRoom[] => {
	const seen = new Set<number>();
	return received.filter((m) => {
		if (!("seq" in m)) return false;
		if (seen.has(m.seq)) return false;
		seen.add(m.seq);
		return true;
	});
};
export const statusesOf = (received: BotToRoom[]): Status[] => applied(received).filter((m): m is Status => m.type === "status");
export const segmentsOf = (received: BotToRoom[]): Segment[] => applied(received).flatMap((m) => (m.type === "segment" ? [m.segment] : []));
export const finalStatus = (received: BotToRoom[]): Status | undefined =>
	statusesOf(received).find((s) => s.status === "completed" || s.status === "failed");
