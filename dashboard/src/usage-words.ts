/**
 * The Usage page's figures in words (docs/dashboard.md#usage): minutes as people read them, and
 * each cap as how close the account is to it and what happens there. Pure; rendered as text.
 */
import type { SetCap, UsageCaps } from "./types";
import { bytes } from "./ui/format";

/** Minutes to the hundredth as "0 min", "42 s", "12.5 min", "3 h 5 min". */
export function minutesWords(minutes: number): string {
	if (minutes <= 0) return "0 min";
	if (minutes < 1) return `${Math.max(1, Math.round(minutes * 60))} s`;
	if (minutes < 60) return `${Number(minutes.toFixed(1))} min`;
	// Whole minutes first, so 599.95 is "10 h", never "9 h 60 min".
	const whole = Math.round(minutes);
	const h = Math.floor(whole / 60);
	const m = whole % 60;
	return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

export type CapKind = keyof UsageCaps;

const CAP_NAMES: Record<CapKind, string> = {
	bot_minutes_per_day: "Bot minutes today (UTC)",
	bot_minutes_per_month: "Bot minutes this month (UTC)",
	storage_bytes: "Recordings stored",
};

export const capName = (kind: CapKind): string => CAP_NAMES[kind];

/** How much of a cap is used, as a whole percentage (over 100 when running bots passed it). */
export function capShare(cap: SetCap): number {
	if (cap.limit <= 0) return 100;
	return Math.round((cap.used / cap.limit) * 100);
}

const amount = (kind: CapKind, n: number) => (kind === "storage_bytes" ? bytes(n) : minutesWords(n));

/** "12 min of 60 min (20%)". */
export function capFigures(kind: CapKind, cap: SetCap): string {
	return `${amount(kind, cap.used)} of ${amount(kind, cap.limit)} (${capShare(cap)}%)`;
}

/** What the cap means for the next bot: room left, or refused and until when. */
export function capOutlook(kind: CapKind, cap: SetCap, when: (iso: string) => string): string {
	const reached = cap.used >= cap.limit;
	if (kind === "storage_bytes") {
		return reached
			? "Reached: bots that record are refused until recordings are deleted. Bots without recording are still sent."
			: `${bytes(cap.limit - cap.used)} left for recordings.`;
	}
	const reset = cap.resets_at ? when(cap.resets_at) : "the next period";
	return reached
		? `Reached: new bots are refused until ${reset}. Bots already in meetings stay until they end.`
		: `${minutesWords(Math.round((cap.limit - cap.used) * 100) / 100)} left; resets ${reset}.`;
}
