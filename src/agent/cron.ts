/**
 * Routine schedules: five-field cron expressions in UTC (docs/agent.md#routines), with Vixie
 * cron's meaning. Our own small evaluator rather than a package: Vixie decides between AND and
 * OR of day of month and day of week by whether a field starts with `*` (so `*\/2` is "any"),
 * which value-counting parsers get wrong, and it must not depend on the isolate's time zone.
 */
export type CronCheck = { ok: true; expression: string } | { ok: false; field: string; detail: string };

interface FieldRule {
	name: string;
	min: number;
	max: number;
	names?: readonly string[];
}

const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] as const;
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;

const FIELDS = [
	{ name: "minute", min: 0, max: 59 },
	{ name: "hour", min: 0, max: 23 },
	{ name: "day of month", min: 1, max: 31 },
	{ name: "month", min: 1, max: 12, names: MONTH_NAMES },
	// 7 is Sunday as well as 0, as in Vixie cron.
	{ name: "day of week", min: 0, max: 7, names: DAY_NAMES },
] as const satisfies readonly FieldRule[];

/** The longest a month can be, for refusing days that never come (Feb 30). */
const MONTH_LENGTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

interface Schedule {
	minutes: Set<number>;
	hours: Set<number>;
	days: Set<number>;
	months: Set<number>;
	weekdays: Set<number>;
	/** Vixie: when either day field starts with `*`, a day must match both; otherwise either. */
	dayStar: boolean;
}

class FieldError extends Error {
	constructor(
		readonly field: string,
		detail: string,
	) {
		super(detail);
	}
}

function value(token: string, rule: FieldRule): number {
	const named = rule.names?.indexOf(token.toLowerCase()) ?? -1;
	if (named >= 0) return rule.names === MONTH_NAMES ? named + 1 : named;
	if (!/^\d+$/.test(token)) throw new FieldError(rule.name, `${rule.name} has an unknown value "${token}"`);
	const n = Number(token);
	if (n < rule.min || n > rule.max) throw new FieldError(rule.name, `${rule.name} must be ${rule.min}-${rule.max}, got ${token}`);
	return n;
}

function parseField(text: string, rule: FieldRule): Set<number> {
	const values = new Set<number>();
	for (const part of text.split(",")) {
		const m = /^([^/]+)(?:\/(.*))?$/.exec(part);
		if (!m) throw new FieldError(rule.name, `${rule.name} has a malformed item in "${text}"`);
		const range = m[1] ?? "";
		const stepText = m[2];
		let low: number;
		let high: number;
		if (range === "*") [low, high] = [rule.min, rule.max];
		else {
			const [first = "", last, ...extra] = range.split("-");
			if (extra.length > 0) throw new FieldError(rule.name, `${rule.name} has a malformed range "${range}"`);
			low = value(first, rule);
			high = last === undefined ? low : value(last, rule);
			// `fri-sun` ends on Sunday as 7, the way `5-7` does.
			if (rule.names === DAY_NAMES && last !== undefined && high === 0 && low > 0) high = 7;
			if (high < low) throw new FieldError(rule.name, `${rule.name} range ${range} is reversed`);
			// `5/15` is read three ways by different crons; ask for the form everyone reads alike.
			if (stepText !== undefined && last === undefined)
				throw new FieldError(rule.name, `${rule.name} step needs * or a range (e.g. ${range}-${rule.max}/${stepText}), got ${part}`);
		}
		let step = 1;
		if (stepText !== undefined) {
			if (!/^\d+$/.test(stepText) || Number(stepText) < 1)
				throw new FieldError(rule.name, `${rule.name} step must be a whole number from 1, got "${stepText}"`);
			step = Number(stepText);
		}
		for (let n = low; n <= high; n += step) values.add(rule.name === "day of week" ? n % 7 : n);
	}
	return values;
}

function parse(expr: string): Schedule {
	const parts = expr.trim().split(/\s+/);
	if (parts[0]?.startsWith("@")) throw new FieldError("cron", `nicknames such as ${parts[0]} are not supported; write the 5 fields`);
	if (parts.length !== 5 || parts[0] === "")
		throw new FieldError(
			"cron",
			`cron needs 5 fields (minute hour day-of-month month day-of-week), got ${parts[0] === "" ? 0 : parts.length}`,
		);
	const [minute, hour, dom, month, dow] = parts as [string, string, string, string, string];
	FIELDS.forEach((rule, i) => {
		const text = parts[i] ?? "";
		const unsupported = /[^0-9a-zA-Z*,/-]/.exec(text);
		if (unsupported) throw new FieldError(rule.name, `${rule.name} does not support "${unsupported[0]}" (in "${text}")`);
	});
	const [minuteRule, hourRule, domRule, monthRule, dowRule] = FIELDS;
	const schedule: Schedule = {
		minutes: parseField(minute, minuteRule),
		hours: parseField(hour, hourRule),
		days: parseField(dom, domRule),
		months: parseField(month, monthRule),
		weekdays: parseField(dow, dowRule),
		dayStar: dom.startsWith("*") || dow.startsWith("*"),
	};
	// With AND (a `*` day of week), the days of month alone must occur in some chosen month.
	const days = [...schedule.days];
	if (dow.startsWith("*") && ![...schedule.months].some((m) => days.some((d) => d <= (MONTH_LENGTH[m - 1] ?? 31))))
		throw new FieldError("day of month", `day of month ${dom} never occurs in month ${month}`);
	return schedule;
}

/** Whether `expr` is a 5-field cron this service runs; when not, the field at fault and why. */
export function checkCron(expr: string): CronCheck {
	try {
		parse(expr);
		return { ok: true, expression: expr.trim().split(/\s+/).join(" ") };
	} catch (err) {
		if (err instanceof FieldError) return { ok: false, field: err.field, detail: err.message };
		throw err;
	}
}

/**
 * The fewest minutes between two runs of a valid `expr`, as far as a routine floor needs it (at
 * most 60): the gaps between its minutes, and from an hour's last minute to the next hour's first
 * when two adjacent hours run (23 and 0 counted adjacent, whatever the days).
 */
export function shortestGapMinutes(expr: string): number {
	const s = parse(expr);
	const minutes = [...s.minutes].sort((a, b) => a - b);
	let gap = 60;
	for (let i = 1; i < minutes.length; i++) gap = Math.min(gap, (minutes[i] as number) - (minutes[i - 1] as number));
	const adjacentHours = [...s.hours].some((hour) => s.hours.has((hour + 1) % 24));
	if (adjacentHours && minutes.length > 1) gap = Math.min(gap, 60 - (minutes.at(-1) as number) + (minutes[0] as number));
	return gap;
}

/**
 * A routine's cron: checkCron's rules, and no two runs closer than `floorMinutes` (1 to 60), so
 * one user's routines cannot call a model every minute.
 */
export function checkRoutineCron(expr: string, floorMinutes: number): CronCheck {
	const check = checkCron(expr);
	if (!check.ok) return check;
	const floor = Math.max(1, Math.min(60, Math.floor(floorMinutes)));
	const gap = shortestGapMinutes(check.expression);
	if (gap >= floor) return check;
	return {
		ok: false,
		field: "minute",
		detail: `runs ${gap === 1 ? "1 minute" : `${gap} minutes`} apart; a routine runs at most once every ${floor} minutes (e.g. */${floor} * * * *)`,
	};
}

const MINUTE = 60_000;

function dayMatches(s: Schedule, t: Date): boolean {
	const dom = s.days.has(t.getUTCDate());
	const dow = s.weekdays.has(t.getUTCDay());
	return s.dayStar ? dom && dow : dom || dow;
}

/**
 * The first minute strictly after `afterMs` (UTC) that `expr` names. Throws for an expression
 * checkCron refuses. Each miss jumps to the start of the next month, day, hour or minute.
 */
export function nextRunAfter(expr: string, afterMs: number): number {
	const s = parse(expr);
	const t = new Date(Math.floor(afterMs / MINUTE) * MINUTE + MINUTE);
	// Eight years cover every leap-day gap; the jumps make this a few thousand steps at most.
	const limit = t.getTime() + 8 * 366 * 24 * 60 * MINUTE;
	while (t.getTime() <= limit) {
		if (!s.months.has(t.getUTCMonth() + 1)) {
			t.setUTCMonth(t.getUTCMonth() + 1, 1);
			t.setUTCHours(0, 0);
		} else if (!dayMatches(s, t)) {
			t.setUTCDate(t.getUTCDate() + 1);
			t.setUTCHours(0, 0);
		} else if (!s.hours.has(t.getUTCHours())) t.setUTCHours(t.getUTCHours() + 1, 0);
		else if (!s.minutes.has(t.getUTCMinutes())) t.setUTCMinutes(t.getUTCMinutes() + 1);
		else return t.getTime();
	}
	throw new Error(`cron ${expr} has no run in eight years`);
}
