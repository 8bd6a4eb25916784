/** What the Google Meet tests wait for and read, over the bot channel and the sandbox's record. */
import { expect } from "vitest";
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
/** What the bot must transcribe from them. */
export const TWO_LINES = [
	{ speaker: ALICE, text: ALICE_LINE },
	{ speaker: BOB, text: BOB_LINE },
];

/** A line said in the meeting: who said it and what. */
export interface Line {
	speaker: string;
	text: string;
}

/** Each segment at its latest version, completed ones only. */
function completedSegments(world: World, bot: Spawned): Segment[] {
	const latest = new Map<string, Segment>();
	for (const segment of segmentsOf(world.room.received(bot.meetingId))) latest.set(segment.segment_id, segment);
	return [...latest.values()].filter((s) => s.completed);
}

/**
 * The completed segments once every line is among them, or after 40 s whatever came, so the test's
 * assertion shows it. A caption the page stalls on (a loaded machine) is confirmed early and
 * corrected under the same segment_id: the latest version counts.
 */
export async function transcribed(world: World, bot: Spawned, lines: readonly Line[]): Promise<Segment[]> {
	const heard = () => lines.every((line) => completedSegments(world, bot).some((s) => s.speaker === line.speaker && s.text === line.text));
	let timer: ReturnType<typeof setTimeout> | undefined;
	await Promise.race([
		world.room.until(bot.meetingId, () => heard()),
		new Promise((resolve) => {
			timer = setTimeout(resolve, 40_000);
		}),
	]);
	clearTimeout(timer);
	return completedSegments(world, bot);
}

/** Matches segments that hold each line (with its speaker), whatever else they hold. */
export const holding = (lines: readonly Line[]) => expect.arrayContaining(lines.map((line) => expect.objectContaining(line)));

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
