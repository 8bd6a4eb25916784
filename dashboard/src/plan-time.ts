/**
 * When a planned meeting is, in the reader's own time zone and language, with the zone named
 * ("Mon, Nov 30, 2026, 3:30 PM GMT+5:30"), so a time read aloud or copied says which clock it
 * is on. Pure and import-free: the end-to-end test formats the same instant the same way.
 */
export const PLAN_TIME_FORMAT: Intl.DateTimeFormatOptions = {
	weekday: "short",
	year: "numeric",
	month: "short",
	day: "numeric",
	hour: "numeric",
	minute: "2-digit",
	timeZoneName: "short",
};

/** The instant in the reader's time, or null for none (or a time that is no time). */
export function planTime(iso: string | null | undefined, locale?: string, timeZone?: string): string | null {
	if (!iso) return null;
	const at = new Date(iso);
	if (Number.isNaN(at.getTime())) return null;
	return at.toLocaleString(locale, { ...PLAN_TIME_FORMAT, ...(timeZone ? { timeZone } : {}) });
}

/** Plans in the order they happen: the soonest first, those without a time last (newest made first). */
export function byScheduledTime<T extends { created_at: string; data?: { scheduled_at?: unknown } | null }>(plans: T[]): T[] {
	const at = (plan: T) => {
		const value = plan.data?.scheduled_at;
		const ms = typeof value === "string" ? Date.parse(value) : Number.NaN;
		return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
	};
	return [...plans].sort((a, b) => at(a) - at(b) || b.created_at.localeCompare(a.created_at));
}
