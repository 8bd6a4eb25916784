import type { HostReport } from "../../src/bot-channel/fleet";
import type { MeetingPlacement, PlacementHost } from "../../src/live/frames";
import { sanitize } from "../../src/meetings/failure-detail";

/** Hosts listed in `data.placement.hosts`: enough to see a small fleet whole, bounded for a large one. */
export const PLACEMENT_HOSTS_SHOWN = 10;
/** Busy hosts named in the sentence; the rest are counted. */
const HOSTS_NAMED = 4;
/** A host's refusal as shown: its own words are attacker-reachable text, so bounded (and made safe by sanitize). */
const REFUSAL_MAX = 120;

export interface WaitingAttempt {
	since: string;
	deadline: string;
	attempt: number;
}

/**
 * What a waiting meeting waits on, from the hosts' fresh reports (docs/bot-fleet.md#how-a-bot-is-placed).
 * Deterministic for the same reports, so an unchanged fleet is an unchanged record and nothing is written.
 */
export function describeWait(reports: HostReport[], attempt: WaitingAttempt, freshS: number): MeetingPlacement {
	const hosts = reports.map(hostView).sort(byRoomThenName);
	const open = hosts.filter((h) => h.free > 0);
	const base = { ...attempt, hosts: hosts.slice(0, PLACEMENT_HOSTS_SHOWN), hosts_reporting: hosts.length };
	if (hosts.length === 0) {
		return { ...base, reason: "no_host_reported", detail: `no bot host has reported in the last ${freshS} s` };
	}
	if (open.length > 0) {
		const free = open.reduce((sum, h) => sum + h.free, 0);
		const who = open.length === 1 ? "1 host has" : `${open.length} hosts have`;
		return { ...base, reason: "not_yet_pulled", detail: `${who} room (${free} free); no host has pulled the ticket yet` };
	}
	const named = hosts.slice(0, HOSTS_NAMED).map((h) => `${h.refusing} on ${h.host_id}`);
	const more = hosts.length > HOSTS_NAMED ? `, and ${hosts.length - HOSTS_NAMED} more` : "";
	const all = hosts.length === 1 ? "the 1 host is busy" : `all ${hosts.length} hosts busy`;
	return { ...base, reason: "all_hosts_busy", detail: sanitize(`${all}: ${named.join(", ")}${more}`) };
}

function hostView(report: HostReport): PlacementHost {
	return { host_id: report.host_id, free: report.free, slots: report.slots, refusing: report.free > 0 ? null : refusalOf(report) };
}

/** A host's own words when it sends them; an older host's are made from its counts. */
function refusalOf(report: HostReport): string {
	const said = report.refusing ? sanitize(report.refusing) : "";
	if (said) return said.length > REFUSAL_MAX ? `${said.slice(0, REFUSAL_MAX - 1)}…` : said;
	if (report.draining) return "draining";
	const busy = report.running + report.launching;
	if (busy >= report.slots) return `${busy} of ${report.slots} slots`;
	if (report.limited_by?.length) return `limited by ${report.limited_by.join(", ")}`;
	return `no room (load ${report.load1.toFixed(1)}, ${Math.round(report.mem_available_mb)} MB memory available)`;
}

const byRoomThenName = (a: PlacementHost, b: PlacementHost) =>
	b.free - a.free || (a.host_id < b.host_id ? -1 : a.host_id > b.host_id ? 1 : 0);
