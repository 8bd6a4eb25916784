/**
 * Who talked how long (docs/api.md#participants): each speaker's talk time is the sum of their
 * confirmed segments' lengths (`end - start`, seconds), and a speaker is matched to a participant
 * by name, since a segment names its speaker as the captions show them and carries no
 * participant id. Pure: the Worker, the exports and the tests read it.
 */

/** One stay in the meeting: a rejoin opens another. */
export interface Stay {
	joined_at: string | null;
	left_at: string | null;
}

/** A participant as the bot saw them: their latest name, first join, last leave and every stay. */
export interface Person {
	participant_id: string;
	name: string;
	joined_at: string | null;
	left_at: string | null;
	intervals: Stay[];
}

/** A participant with their talk time; null when another participant has the same name, so their speech cannot be told apart. */
export type Participant = Person & { talk_time_s: number | null };

/** One speaker name of the transcript and their talk time; `participant_id` null when no one participant has that name. */
export interface SpeakerTalk {
	speaker: string;
	talk_time_s: number;
	participant_id: string | null;
}

/** Seconds to tenths: lengths are sums of floating-point times. */
const tenths = (seconds: number) => Math.round(seconds * 10) / 10;

/** A name as it is compared: Unicode-normalized, spaces folded, case ignored. */
export function nameKey(name: string): string {
	return name.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();
}

/** Talk time per speaker name from segments: confirmed ones only (a draft is replaced by its confirmation). */
export function talkBySpeaker(segments: { speaker: string | null; start: number; end: number; completed: boolean | null }[]) {
	const seconds = new Map<string, number>();
	for (const s of segments) {
		if (!s.completed) continue;
		const speaker = s.speaker ?? "";
		seconds.set(speaker, (seconds.get(speaker) ?? 0) + Math.max(0, s.end - s.start));
	}
	return [...seconds].map(([speaker, total]) => ({ speaker, seconds: total }));
}

/**
 * The participants with their talk time, and every speaker with theirs and the participant they
 * were matched to. A speaker matches the participant whose name is theirs (nameKey); a name two
 * participants share matches neither, and an unnamed speaker no one.
 */
export function attributeTalk(
	people: Person[],
	talk: { speaker: string; seconds: number }[],
): { participants: Participant[]; speakers: SpeakerTalk[] } {
	const byName = new Map<string, Person[]>();
	for (const p of people) byName.set(nameKey(p.name), [...(byName.get(nameKey(p.name)) ?? []), p]);
	const spoken = new Map<string, number>();
	const speakers = talk
		.map(({ speaker, seconds }) => {
			const named = nameKey(speaker) ? byName.get(nameKey(speaker)) : undefined;
			const match = named?.length === 1 ? named[0] : undefined;
			if (match) spoken.set(match.participant_id, (spoken.get(match.participant_id) ?? 0) + seconds);
			return { speaker, talk_time_s: tenths(seconds), participant_id: match?.participant_id ?? null };
		})
		.sort((a, b) => b.talk_time_s - a.talk_time_s || a.speaker.localeCompare(b.speaker));
	const participants = people.map((p) => ({
		...p,
		talk_time_s: (byName.get(nameKey(p.name))?.length ?? 0) > 1 ? null : tenths(spoken.get(p.participant_id) ?? 0),
	}));
	return { participants, speakers };
}
