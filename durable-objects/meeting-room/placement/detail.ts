import type { HostReport } from "../../../src/bot-channel/fleet";
import type { MeetingPlacement, PlacementReason } from "../../../src/live/frames";
import { sanitize } from "../../../src/meetings/failure-detail";

/** Busy hosts named in the operators' line; the rest are counted. */
const HOSTS_NAMED = 4;
/** A host's refusal as logged: its own words are attacker-reachable text, so bounded (and made safe by sanitize). */
const REFUSAL_MAX = 120;

export interface WaitingAttempt {
	since: string;
	deadline: string;
	attempt: number;
}

/** What a waiting meeting shows its user, and the operators' line that names the hosts. */
export interface WaitDescription {
	placement: MeetingPlacement;
	/** For the operators' log only: host ids, their free slots and their own words. */
	hosts: string;
}

/**
 * What a waiting meeting waits on, from the hosts' fresh reports (docs/bot-fleet.md#how-a-bot-is-placed).
 * The user sees their own wait, the count of hosts and a generic reason: never a host's id, its
 * load nor its words, which tell one tenant of the others' activity and let a compromised host
 * write into every waiting meeting. Those go to the operators' log (`hosts`). Deterministic for the
 * same reports, so an unchanged fleet is an unchanged record and nothing is written.
 */
export function describeWait(reports: HostReport[], attempt: WaitingAttempt, freshS: number): WaitDescription {
	const reason = reasonOf(reports);
	const placement: MeetingPlacement = { ...attempt, reason, detail: userWords(reason, freshS), hosts_reporting: reports.length };
	return { placement, hosts: operatorWords(reports, reason, freshS) };
}

function reasonOf(reports: HostReport[]): PlacementReason {
	if (reports.length === 0) return "no_host_reported";
	return reports.some((r) => r.free > 0) ? "not_yet_pulled" : "all_hosts_busy";
}

/** The reason in words a user may read: nothing in it comes from a host. */
function userWords(reason: PlacementReason, freshS: number): string {
	if (reason === "no_host_reported") return `no bot host has reported in the last ${freshS} s`;
	if (reason === "all_hosts_busy") return "all bot hosts are busy";
	return "a bot host has room but has not taken the meeting yet";
}

/** The same reason with the hosts named, as operators read it in the log. */
function operatorWords(reports: HostReport[], reason: PlacementReason, freshS: number): string {
	const hosts = [...reports].sort((a, b) => b.free - a.free || (a.host_id < b.host_id ? -1 : a.host_id > b.host_id ? 1 : 0));
	if (reason === "no_host_reported") return `no bot host has reported in the last ${freshS} s`;
	if (reason === "not_yet_pulled") {
		const open = hosts.filter((h) => h.free > 0);
		return `room on ${open.map((h) => `${h.host_id} (${h.free} free)`).join(", ")}; no host has pulled the ticket yet`;
	}
	const named = hosts.slice(0, HOSTS_NAMED).map((h) => `${refusalOf(h)} on ${h.host_id}`);
	const more = hosts.length > HOSTS_NAMED ? `, and ${hosts.length - HOSTS_NAMED} more` : "";
	return sanitize(`all ${hosts.length} hosts busy: ${named.join(", ")}${more}`);
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
