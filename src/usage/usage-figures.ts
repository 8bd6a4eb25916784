/**
 * How a meeting's bot time is counted (docs/api.md#usage), as pure arithmetic over its record's
 * times, so the per-day table, the per-meeting rows and the caps all cut the same spans:
 * - in the meeting: from admission (`start_time`, the move to `active`) to the end (`end_time`);
 * - waiting: from the start of its join (`joining_at`) to admission, or to the end when it was
 *   never let in (the join page, the lobby and waiting for a host);
 * a meeting still live counts both up to now. Days are UTC days, `YYYY-MM-DD`.
 */

const DAY_MS = 86_400_000;

/** A meeting record's times, as D1 holds them (ISO 8601, UTC). */
export interface BotTimes {
	joining_at: string | null;
	start_time: string | null;
	end_time: string | null;
	/** Whether the bot is still running: a live meeting counts up to now. */
	live: boolean;
}

/** A span of time, in epoch milliseconds; `to` ≥ `from`. */
export interface Span {
	from: number;
	to: number;
}

const at = (iso: string | null): number | null => {
	if (!iso) return null;
	const ms = Date.parse(iso);
	return Number.isNaN(ms) ? null : ms;
};

const span = (from: number | null, to: number | null): Span | null => (from === null || to === null || to <= from ? null : { from, to });

/** The bot's two spans: waiting to be let in, and in the meeting; null where it had none. */
export function botSpans(m: BotTimes, nowMs: number): { waiting: Span | null; inMeeting: Span | null } {
	const admitted = at(m.start_time);
	// An ended record without an end time (none is written so, but older rows may be) counts nothing open-ended.
	const end = m.live ? nowMs : at(m.end_time);
	const joining = at(m.joining_at);
	return { waiting: span(joining, admitted ?? end), inMeeting: span(admitted, end) };
}

/** Seconds of `s` within [from, to). */
export function secondsWithin(s: Span | null, from: number, to: number): number {
	if (!s) return 0;
	return Math.max(0, Math.min(s.to, to) - Math.max(s.from, from)) / 1000;
}

/** The epoch milliseconds at which a UTC day (`YYYY-MM-DD`) starts. */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00.000Z`);

/** The UTC day of an instant. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Every UTC day from `first` to `last`, both included. */
export function daysBetween(first: string, last: string): string[] {
	const days: string[] = [];
	for (let ms = dayStart(first); ms <= dayStart(last); ms += DAY_MS) days.push(dayOf(ms));
	return days;
}

/** Seconds of a span on each UTC day it touches within [fromMs, toMs): only those days are visited. */
export function secondsPerDay(s: Span | null, fromMs: number, toMs: number): Map<string, number> {
	const out = new Map<string, number>();
	if (!s) return out;
	const first = Math.max(s.from, fromMs);
	const end = Math.min(s.to, toMs);
	for (let day = Math.floor(first / DAY_MS) * DAY_MS; day < end; day += DAY_MS) {
		const seconds = secondsWithin(s, Math.max(day, fromMs), Math.min(day + DAY_MS, toMs));
		if (seconds > 0) out.set(dayOf(day), seconds);
	}
	return out;
}

/** The first instant of the next UTC day, and of the next UTC month, after `nowMs`: when a cap resets. */
export function nextDayStart(nowMs: number): number {
	return dayStart(dayOf(nowMs)) + DAY_MS;
}

export function monthStart(nowMs: number): number {
	const d = new Date(nowMs);
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export function nextMonthStart(nowMs: number): number {
	const d = new Date(nowMs);
	return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** Seconds as minutes, to the hundredth. */
export const minutes = (seconds: number): number => Math.round((seconds / 60) * 100) / 100;
