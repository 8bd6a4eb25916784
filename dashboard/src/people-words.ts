/**
 * The People panel's words (docs/dashboard.md#a-meeting): each participant's stays, talk
 * time and share of the talk, from GET /meetings/{id}/participants. Pure, no DOM: names stay
 * data for the page to render as text.
 */
import type { Schemas } from "@meetbot/client";
import { clock, when } from "./ui/format";

type Stay = Schemas["MeetingParticipant"]["intervals"][number];

/** One stay in words: when they came and went; an end the bot never saw reads by whether the meeting is still on. */
export function stayWords(stay: Stay, meetingLive: boolean): string {
	const came = stay.joined_at ? `joined ${when(stay.joined_at)}` : "there before the bot joined";
	const went = stay.left_at ? `left ${when(stay.left_at)}` : meetingLive ? "still here" : "there until the end";
	return `${came} · ${went}`;
}

/** Talk time as `m:ss` (`h:mm:ss` past an hour); a shared name's talk cannot be told apart. */
export function talkWords(seconds: number | null): string {
	return seconds === null ? "unknown (name shared)" : clock(seconds);
}

/** A participant's share of all the talk, in whole percent; a dash when nobody talked yet or their talk is unknown. */
export function shareWords(seconds: number | null, totalSeconds: number): string {
	if (seconds === null || totalSeconds <= 0) return "—";
	return `${Math.round((seconds / totalSeconds) * 100)}%`;
}

/** All the talk the transcript has, every speaker's, matched or not. */
export function totalTalk(speakers: { talk_time_s: number }[]): number {
	return speakers.reduce((sum, s) => sum + s.talk_time_s, 0);
}
