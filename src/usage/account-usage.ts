import type { Env } from "../env";
import { ApiError } from "../errors";
import {
	botSpans,
	dayStart,
	daysBetween,
	minutes,
	monthStart,
	nextDayStart,
	nextMonthStart,
	secondsPerDay,
	secondsWithin,
} from "./usage-figures";
import {
	type MeetingTimesRow,
	meetingTimesBetween,
	readUsageCaps,
	storedBytes,
	storedBytesPerDay,
	storedBytesPerMeeting,
	transcriptionSecondsPerDay,
	transcriptionSecondsPerMeeting,
	type UsageCaps,
} from "./usage-store";

/** The UTC days a report covers, both included. */
export interface DayRange {
	from: string;
	to: string;
}

const DAY_MS = 86_400_000;
const rangeBounds = (range: DayRange) => ({ fromMs: dayStart(range.from), toMs: dayStart(range.to) + DAY_MS });
const iso = (ms: number) => new Date(ms).toISOString();

/** What the account used over a range of days, per day and in all, and its caps as they stand now. */
export async function usageReport(env: Env, userId: number, range: DayRange, now: Date) {
	const nowMs = now.getTime();
	const { fromMs, toMs } = rangeBounds(range);
	const days = daysBetween(range.from, range.to);
	const [meetings, transcription, stored, storedNow, caps] = await Promise.all([
		meetingTimesBetween(env, userId, iso(fromMs), iso(toMs)),
		transcriptionSecondsPerDay(env, userId, range.from, range.to),
		storedBytesPerDay(env, userId, iso(fromMs), iso(toMs)),
		storedBytes(env, userId),
		capStanding(env, userId, now),
	]);
	const perDay = new Map(days.map((day) => [day, { bot: 0, waiting: 0, meetings: 0 }]));
	// Totals are summed from unrounded seconds, so they are not the sums of rounded days.
	const total = { bot: 0, waiting: 0, meetings: 0 };
	for (const meeting of meetings) {
		const spans = botSpans(meeting, nowMs);
		const inMeeting = secondsPerDay(spans.inMeeting, fromMs, toMs);
		const waiting = secondsPerDay(spans.waiting, fromMs, toMs);
		const touched = new Set([...inMeeting.keys(), ...waiting.keys()]);
		if (touched.size > 0) total.meetings += 1;
		for (const day of touched) {
			const row = perDay.get(day);
			if (!row) continue;
			row.bot += inMeeting.get(day) ?? 0;
			row.waiting += waiting.get(day) ?? 0;
			row.meetings += 1;
			total.bot += inMeeting.get(day) ?? 0;
			total.waiting += waiting.get(day) ?? 0;
		}
	}
	const rows = days.map((day) => {
		const row = perDay.get(day) ?? { bot: 0, waiting: 0, meetings: 0 };
		return {
			day,
			meetings: row.meetings,
			bot_minutes: minutes(row.bot),
			waiting_minutes: minutes(row.waiting),
			transcription_minutes: minutes(transcription.get(day) ?? 0),
			storage_bytes_added: stored.get(day) ?? 0,
		};
	});
	return {
		from: range.from,
		to: range.to,
		generated_at: now.toISOString(),
		totals: {
			meetings: total.meetings,
			bot_minutes: minutes(total.bot),
			waiting_minutes: minutes(total.waiting),
			transcription_minutes: minutes([...transcription.values()].reduce((sum, v) => sum + v, 0)),
			storage_bytes_added: rows.reduce((sum, r) => sum + r.storage_bytes_added, 0),
		},
		storage_bytes: storedNow,
		days: rows,
		caps,
	};
}

/** One page of the meetings whose bot ran in the range, newest first, with each one's figures in it. */
export async function meetingUsagePage(env: Env, userId: number, range: DayRange, now: Date, page: { limit: number; offset: number }) {
	const nowMs = now.getTime();
	const { fromMs, toMs } = rangeBounds(range);
	const all = (await meetingTimesBetween(env, userId, iso(fromMs), iso(toMs)))
		.map((m) => ({ m, ...secondsIn(m, nowMs, fromMs, toMs) }))
		.filter((r) => r.waiting + r.inMeeting > 0);
	const rows = all.slice(page.offset, page.offset + page.limit);
	const ids = rows.map((r) => r.m.meeting_id);
	const [transcription, stored] = await Promise.all([
		transcriptionSecondsPerMeeting(env, ids, range.from, range.to),
		storedBytesPerMeeting(env, userId, ids),
	]);
	return {
		from: range.from,
		to: range.to,
		total: all.length,
		limit: page.limit,
		offset: page.offset,
		meetings: rows.map(({ m, waiting, inMeeting }) => ({
			meeting_id: m.meeting_id,
			platform: m.platform,
			native_meeting_id: m.native_meeting_id,
			title: m.title,
			status: m.status,
			live: m.live,
			joining_at: m.joining_at,
			start_time: m.start_time,
			end_time: m.end_time,
			bot_minutes: minutes(inMeeting),
			waiting_minutes: minutes(waiting),
			transcription_minutes: minutes(transcription.get(m.meeting_id) ?? 0),
			storage_bytes: stored.get(m.meeting_id) ?? 0,
		})),
	};
}

/** Seconds a meeting's bot waited and was in the meeting within [fromMs, toMs). */
function secondsIn(m: MeetingTimesRow, nowMs: number, fromMs: number, toMs: number) {
	const spans = botSpans(m, nowMs);
	return { waiting: secondsWithin(spans.waiting, fromMs, toMs), inMeeting: secondsWithin(spans.inMeeting, fromMs, toMs) };
}

/** A cap as it stands: its limit, what counts against it now, and when that count starts again (null: it does not by time). */
export interface CapStanding {
	limit: number;
	used: number;
	resets_at: string | null;
}

export interface CapsStanding {
	bot_minutes_per_day: CapStanding | null;
	bot_minutes_per_month: CapStanding | null;
	storage_bytes: CapStanding | null;
}

/**
 * Minutes bots spent in meetings (admitted, up to now for live ones) since each of `starts`, up
 * to now: the meetings are read once, from the earliest start (today's count is within the month's).
 */
async function botMinutesSince(env: Env, userId: number, starts: number[], nowMs: number): Promise<number[]> {
	const meetings = await meetingTimesBetween(env, userId, iso(Math.min(...starts)), iso(nowMs + 1));
	return starts.map((fromMs) => minutes(meetings.reduce((sum, m) => sum + secondsIn(m, nowMs, fromMs, nowMs + 1).inMeeting, 0)));
}

/** The account's caps with what counts against each now: today's and this month's bot minutes (UTC), and bytes stored. */
export async function capStanding(env: Env, userId: number, now: Date, caps?: UsageCaps): Promise<CapsStanding> {
	const set = caps ?? (await readUsageCaps(env, userId));
	const nowMs = now.getTime();
	const today = dayStart(iso(nowMs).slice(0, 10));
	const periods = [
		...(set.bot_minutes_per_day === null ? [] : [today]),
		...(set.bot_minutes_per_month === null ? [] : [monthStart(nowMs)]),
	];
	const [minutesSince, bytes] = await Promise.all([
		periods.length === 0 ? [] : botMinutesSince(env, userId, periods, nowMs),
		set.storage_bytes === null ? null : storedBytes(env, userId),
	]);
	const day = set.bot_minutes_per_day === null ? null : (minutesSince[0] ?? null);
	const month = set.bot_minutes_per_month === null ? null : (minutesSince[periods.length - 1] ?? null);
	return {
		bot_minutes_per_day:
			set.bot_minutes_per_day === null || day === null
				? null
				: { limit: set.bot_minutes_per_day, used: day, resets_at: iso(nextDayStart(nowMs)) },
		bot_minutes_per_month:
			set.bot_minutes_per_month === null || month === null
				? null
				: { limit: set.bot_minutes_per_month, used: month, resets_at: iso(nextMonthStart(nowMs)) },
		storage_bytes: set.storage_bytes === null || bytes === null ? null : { limit: set.storage_bytes, used: bytes, resets_at: null },
	};
}

/**
 * Refuses a new bot when a cap is reached (docs/api.md#caps): bot minutes for today or this
 * month (429, `Retry-After` until the cap starts again), or, for a bot that would record, the
 * bytes stored (403: only deleting recordings frees it). Bots already running are not stopped.
 */
export async function refuseOverUsageCaps(env: Env, userId: number, bot: { recording: boolean }, now: Date): Promise<void> {
	const caps = await readUsageCaps(env, userId);
	if (caps.bot_minutes_per_day === null && caps.bot_minutes_per_month === null && (caps.storage_bytes === null || !bot.recording)) return;
	const standing = await capStanding(env, userId, now, bot.recording ? caps : { ...caps, storage_bytes: null });
	const timed: [CapStanding | null, string][] = [
		[standing.bot_minutes_per_day, "today (UTC)"],
		[standing.bot_minutes_per_month, "this month (UTC)"],
	];
	for (const [cap, period] of timed) {
		if (!cap || cap.used < cap.limit || !cap.resets_at) continue;
		const retryAfter = Math.max(1, Math.ceil((Date.parse(cap.resets_at) - now.getTime()) / 1000));
		const which = period.startsWith("today") ? "daily" : "monthly";
		throw new ApiError(
			429,
			`The account's ${which} bot minutes cap is reached: ${cap.used} of ${cap.limit} minutes used ${period}. No new bot can be sent until it resets at ${cap.resets_at}`,
			{ "Retry-After": String(retryAfter) },
		);
	}
	const storage = standing.storage_bytes;
	if (storage && storage.used >= storage.limit) {
		throw new ApiError(
			403,
			`The account's storage cap is reached: ${storage.used} of ${storage.limit} bytes stored. A bot that records cannot be sent until recordings are deleted; send it with recording_enabled false`,
		);
	}
}
