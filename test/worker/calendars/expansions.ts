import ical, { type CalendarComponent, type VEvent } from "node-ical";
import { vi } from "vitest";

/**
 * Watches node-ical as the import uses it (the Worker's own import too: the tests share its
 * modules): how many calendars it parsed, and each rule expansion (`between`) with its UID and
 * the number of dates it gave, or its failure. Undone by `vi.restoreAllMocks()`.
 */
export function watchExpansions(): { parsed: number; sizes: number[]; uids: string[]; failed: string[] } {
	const seen = { parsed: 0, sizes: [] as number[], uids: [] as string[], failed: [] as string[] };
	const parse = ical.sync.parseICS.bind(ical.sync);
	vi.spyOn(ical.sync, "parseICS").mockImplementation((text: string) => {
		seen.parsed++;
		const parsed = parse(text) as Record<string, CalendarComponent>;
		for (const component of Object.values(parsed)) {
			const rule = component.type === "VEVENT" ? (component as VEvent).rrule : undefined;
			if (!rule) continue;
			const between = rule.between.bind(rule);
			rule.between = (after: Date, before: Date, inclusive?: boolean) => {
				try {
					const dates = between(after, before, inclusive);
					seen.sizes.push(dates.length);
					if (!seen.uids.includes(String((component as VEvent).uid))) seen.uids.push(String((component as VEvent).uid));
					return dates;
				} catch (err) {
					seen.failed.push(`${(component as VEvent).uid}: ${err instanceof Error ? err.message : err}`);
					throw err;
				}
			};
		}
		return parsed;
	});
	return seen;
}
