/** What the Google Meet tests wait for and read, over the bot channel and the sandbox's record. */
import type { Spawned, World } from "./harness.ts";
import { finalStatus, type Segment, type Status, segmentsOf, statusesOf } from "./room.ts";

export const ALICE = "Alice Archer";
export const BOB = "Bob Baker";
export const ALICE_LINE = "Good morning everyone, the numbers look great.";
export const BOB_LINE = "Thanks Alice, let us review the plan.";

/** Two people who each say one line, for a meeting whose captions must come through. */
export const TWO_SPEAKERS = [
	{ name: ALICE, lines: [ALICE_LINE] },
	{ name: BOB, lines: [BOB_LINE] },
];

/** The confirmed segments, once every one of `speakers` has one. */
export function confirmedFrom(world: World, bot: Spawned, speakers: readonly string[]): Promise<Segment[]> {
	return world.room.until(bot.meetingId, (received) => {
		const done = segmentsOf(received).filter((s) => s.completed);
		return speakers.every((name) => done.some((s) => s.speaker === name)) ? done : undefined;
	});
}

/** The status names the bot reported, in order. */
export const statusNames = (world: World, bot: Spawned): string[] => statusesOf(world.room.received(bot.meetingId)).map((s) => s.status);

/** The first status with this name. */
export const reported = (world: World, bot: Spawned, status: string): Promise<Status> =>
	world.room.until(bot.meetingId, (received) => statusesOf(received).find((s) => s.status === status));

export const finished = (world: World, bot: Spawned): Promise<Status> => world.room.until(bot.meetingId, finalStatus);

/** Ask the bot to leave and wait for its last status. */
export function leaveNow(world: World, bot: Spawned): Promise<Status> {
	world.room.command(bot.meetingId, { action: "leave" });
	return finished(world, bot);
}

/** Who joined, by name, in the order the bot reported them. */
export const joinedNames = (world: World, bot: Spawned): string[] =>
	world.room.received(bot.meetingId).flatMap((m) => (m.type === "participant" && m.event === "join" ? [m.participant.name] : []));
