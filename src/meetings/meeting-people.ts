/**
 * Drizzle store: who was there and what they wrote (docs/api.md#participants, docs/api.md#meeting-chat): the
 * participants with their stays and talk time, and the chat log, read from D1 whether the meeting
 * is live or ended.
 *
 * Talk time is computed on read, not kept at the end: one aggregate over the meeting's confirmed
 * segments (indexed by meeting) answers a handful of rows however long the meeting, it is right
 * for a live meeting too, and it follows a segment the bot confirms late with nothing to redo.
 */
import { and, asc, count, eq, max, sql } from "drizzle-orm";
import { db } from "../db";
import { chatMessages, meetingParticipants, participantIntervals, transcriptSegments } from "../db/schema";
import type { Env } from "../env";
import { attributeTalk, type Participant, type Person, type SpeakerTalk } from "./talk-time";

/** One chat line as the API answers it. */
export interface ChatLine {
	sender: string;
	text: string;
	timestamp: number;
	is_from_bot: boolean;
}

/** The participants with every stay, in the order the bot first saw them. */
export async function peopleOf(env: Env, meetingId: number): Promise<Person[]> {
	const [people, stays] = await db(env).batch([
		db(env).select().from(meetingParticipants).where(eq(meetingParticipants.meetingId, meetingId)),
		db(env).select().from(participantIntervals).where(eq(participantIntervals.meetingId, meetingId)).orderBy(asc(participantIntervals.id)),
	]);
	const firstStay = new Map<string, number>();
	const staysOf = new Map<string, Person["intervals"]>();
	for (const s of stays) {
		if (!firstStay.has(s.participantId)) firstStay.set(s.participantId, s.id);
		staysOf.set(s.participantId, [...(staysOf.get(s.participantId) ?? []), { joined_at: s.joinedAt, left_at: s.leftAt }]);
	}
	const seen = (id: string) => firstStay.get(id) ?? Number.MAX_SAFE_INTEGER;
	return people
		.sort((a, b) => seen(a.participantId) - seen(b.participantId) || a.participantId.localeCompare(b.participantId))
		.map((p) => ({
			participant_id: p.participantId,
			name: p.name,
			joined_at: p.joinedAt,
			left_at: p.leftAt,
			intervals: staysOf.get(p.participantId) ?? [],
		}));
}

/** Seconds of confirmed speech per speaker name, summed by the database (a segment that ends before it starts counts 0). */
async function talkOf(env: Env, meetingId: number): Promise<{ speaker: string; seconds: number }[]> {
	const s = transcriptSegments;
	return db(env)
		.select({ speaker: s.speaker, seconds: sql<number>`sum(max(0, ${s.end} - ${s.start}))` })
		.from(s)
		.where(and(eq(s.meetingId, meetingId), eq(s.completed, true)))
		.groupBy(s.speaker)
		.all();
}

/** The participants with their stays and talk time, and every speaker's talk time (GET /meetings/{id}/participants). */
export async function participantsWithTalk(env: Env, meetingId: number): Promise<{ participants: Participant[]; speakers: SpeakerTalk[] }> {
	const [people, talk] = await Promise.all([peopleOf(env, meetingId), talkOf(env, meetingId)]);
	return attributeTalk(people, talk);
}

/** The meeting chat as the bot saw it, oldest first. */
export async function chatOf(env: Env, meetingId: number): Promise<ChatLine[]> {
	const rows = await db(env).select().from(chatMessages).where(eq(chatMessages.meetingId, meetingId)).orderBy(asc(chatMessages.id)).all();
	return rows.map((m) => ({ sender: m.sender, text: m.text, timestamp: m.timestamp, is_from_bot: m.isFromBot }));
}

/** How far the chat has got (its count and last row): what an export's version reads of it, without the lines. */
export async function chatMarkOf(env: Env, meetingId: number): Promise<{ lines: number; last: number | null }> {
	const row = await db(env)
		.select({ lines: count(), last: max(chatMessages.id) })
		.from(chatMessages)
		.where(eq(chatMessages.meetingId, meetingId))
		.get();
	return row ?? { lines: 0, last: null };
}
