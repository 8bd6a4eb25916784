/**
 * The Join health page's words and order (docs/bot-fleet.md#join-health). Pure
 * (join-health-words.test.ts); every value it returns is rendered as text.
 */
import type { PlatformJoinHealth } from "./types";

/** A success rate as a whole percentage ("57%"), or "no data" without attempts. */
export function rateWords(rate: number | null): string {
	return rate === null ? "no data" : `${Math.round(rate * 100)}%`;
}

/** A time to admission: "430 ms" under a second, "4.2 s" under ten, "45 s" under two minutes, then "3 min 20 s". */
export function secondsWords(seconds: number | null): string {
	if (seconds === null) return "—";
	if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
	if (seconds < 10) return `${seconds.toFixed(1)} s`;
	const whole = Math.round(seconds);
	if (whole < 120) return `${whole} s`;
	return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/** The time to admission's quantiles and how many joins they are over: "p50 20 s, p95 40 s (3 joins)". */
export function admissionWords(admission: PlatformJoinHealth["admission_seconds"]): string {
	if (admission.measured === 0) return "no data";
	const joins = admission.measured === 1 ? "1 join" : `${admission.measured} joins`;
	return `p50 ${secondsWords(admission.p50)}, p95 ${secondsWords(admission.p95)} (${joins})`;
}

/**
 * Platforms worst first: those with attempts by success rate, lowest first (more failures first on
 * a tie), then those without attempts, in the order the API gives.
 */
export function worstFirst(platforms: readonly PlatformJoinHealth[]): PlatformJoinHealth[] {
	const measured = platforms.filter((p) => p.success_rate !== null);
	const empty = platforms.filter((p) => p.success_rate === null);
	measured.sort((a, b) => (a.success_rate ?? 0) - (b.success_rate ?? 0) || b.failed - a.failed);
	return [...measured, ...empty];
}

/** What the figures leave out, in words ("1 ended before admission, 2 fleet failures"), or null when nothing was. */
export function notCountedWords(platform: PlatformJoinHealth): string | null {
	const sum = (rows: { count: number }[]) => rows.reduce((n, row) => n + row.count, 0);
	const ended = sum(platform.ended_before_admission);
	const fleet = sum(platform.fleet_failures);
	const parts = [
		ended > 0 ? `${ended} ended before admission` : null,
		fleet > 0 ? `${fleet} fleet ${fleet === 1 ? "failure" : "failures"}` : null,
	].filter((part): part is string => part !== null);
	return parts.length > 0 ? parts.join(", ") : null;
}
