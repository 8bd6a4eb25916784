/**
 * Join health as Prometheus reads it: the text exposition format, version 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), one gauge family per figure,
 * labelled by platform and window (docs/bot-fleet.md#join-health). The figures are windows, not
 * running totals, so every family is a gauge: graph them as they are, never through `rate()`.
 */
import type { JoinHealth, PlatformJoinHealth } from "./join-health";

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

type Labels = Record<string, string>;
interface Family {
	name: string;
	help: string;
	series: (figures: PlatformJoinHealth) => { labels?: Labels; value: number }[];
}

const NONE = "none";
const UNREPORTED = "unreported";

const FAMILIES: Family[] = [
	{
		name: "meetbot_join_attempts",
		help: "Joins a bot made on the platform that reached an outcome in the window: admitted, or failed before admission",
		series: (f) => [{ value: f.attempts }],
	},
	{ name: "meetbot_join_admitted", help: "Attempts admitted to the meeting in the window", series: (f) => [{ value: f.joined }] },
	{ name: "meetbot_join_failed", help: "Attempts that failed before admission in the window", series: (f) => [{ value: f.failed }] },
	{
		name: "meetbot_join_success_ratio",
		help: "Admitted attempts over all attempts in the window (absent without attempts)",
		series: (f) => (f.success_rate === null ? [] : [{ value: f.success_rate }]),
	},
	{
		name: "meetbot_join_admission_seconds",
		help: "Time from the bot beginning its join to its admission, at the quantile, over the window's admitted joins",
		series: (f) =>
			[
				["0.5", f.admission_seconds.p50],
				["0.95", f.admission_seconds.p95],
			].flatMap(([quantile, value]) => (typeof value === "number" ? [{ labels: { quantile: String(quantile) }, value }] : [])),
	},
	{
		name: "meetbot_join_admission_measured",
		help: "Admitted joins in the window whose time to admission is known",
		series: (f) => [{ value: f.admission_seconds.measured }],
	},
	{
		name: "meetbot_join_failures",
		help: "Failed attempts in the window by completion reason, fleet cause and the join step they stopped at",
		series: (f) =>
			f.failures.map((row) => ({
				labels: { reason: row.reason ?? NONE, cause: row.cause ?? NONE, step: row.step ?? UNREPORTED },
				value: row.count,
			})),
	},
	{
		name: "meetbot_join_fleet_failures",
		help: "Joins the fleet ended before a bot got its answer from the platform (not attempts), by reason and cause",
		series: (f) => f.fleet_failures.map((row) => ({ labels: { reason: row.reason ?? NONE, cause: row.cause ?? NONE }, value: row.count })),
	},
	{
		name: "meetbot_join_ended_before_admission",
		help: "Meetings that ended before admission without failing, e.g. stopped by their user (not attempts), by reason",
		series: (f) => f.ended_before_admission.map((row) => ({ labels: { reason: row.reason ?? NONE }, value: row.count })),
	},
];

/** The figures as exposition text: HELP and TYPE once per family, then its samples. */
export function joinHealthExposition(health: JoinHealth): string {
	const lines: string[] = [];
	for (const family of FAMILIES) {
		lines.push(`# HELP ${family.name} ${helpText(family.help)}`, `# TYPE ${family.name} gauge`);
		for (const { window, platforms } of health.windows) {
			for (const figures of platforms) {
				for (const { labels, value } of family.series(figures)) {
					lines.push(`${family.name}${labelSet({ platform: figures.platform, window, ...labels })} ${value}`);
				}
			}
		}
	}
	return `${lines.join("\n")}\n`;
}

/** `{name="value",…}`, each value escaped as the format asks: backslash, double quote and line feed. */
export function labelSet(labels: Labels): string {
	const pairs = Object.entries(labels).map(([name, value]) => `${name}="${labelValue(value)}"`);
	return `{${pairs.join(",")}}`;
}

export const labelValue = (value: string): string => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

/** HELP text escapes backslash and line feed (a double quote stays). */
const helpText = (text: string): string => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
