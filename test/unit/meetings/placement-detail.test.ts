/**
 * What a meeting waiting for a bot host shows its user, and what the operators' log says
 * (durable-objects/meeting-room/placement/detail.ts): the user's part carries no host's id,
 * load or words; the operators' line names the hosts, bounded and cleaned.
 */
import { describe, expect, it } from "vitest";
import { describeWait } from "../../../durable-objects/meeting-room/placement/detail";
import type { HostReport } from "../../../src/bot-channel/fleet";

const report = (host_id: string, fields: Partial<HostReport> = {}): HostReport => ({
	host_id,
	version: "1.0.0",
	slots: 20,
	running: 2,
	launching: 0,
	free: 18,
	draining: false,
	mem_available_mb: 12_000,
	load1: 0.5,
	...fields,
});

const attempt = { since: "2026-11-28T10:00:00.000Z", deadline: "2026-11-28T10:03:00.000Z", attempt: 2 };

describe("describeWait", () => {
	it("gives the user the wait, a count and a generic reason; the operators the hosts by name", () => {
		const busy = describeWait(
			[
				report("local-1", { free: 0, refusing: "CPU pressure 91% (limit 80%)" }),
				report("local-2", { running: 20, free: 0 }),
				report("old-3", { free: 0, draining: true }),
				report("old-4", { running: 3, free: 0, load1: 3.46, mem_available_mb: 900.4 }),
			],
			attempt,
			60,
		);
		expect(busy.placement).toEqual({ ...attempt, reason: "all_hosts_busy", detail: "all bot hosts are busy", hosts_reporting: 4 });
		expect(busy.hosts).toBe(
			"all 4 hosts busy: CPU pressure 91% (limit 80%) on local-1, 20 of 20 slots on local-2, draining on old-3, no room (load 3.5, 900 MB memory available) on old-4",
		);
		const open = describeWait([report("busy-a", { free: 0 }), report("roomy-b", { free: 3 })], attempt, 60);
		expect(open.placement).toEqual({
			...attempt,
			reason: "not_yet_pulled",
			detail: "a bot host has room but has not taken the meeting yet",
			hosts_reporting: 2,
		});
		expect(open.hosts).toBe("room on roomy-b (3 free); no host has pulled the ticket yet");
		expect(describeWait([], attempt, 60).placement).toEqual({
			...attempt,
			reason: "no_host_reported",
			detail: "no bot host has reported in the last 60 s",
			hosts_reporting: 0,
		});
	});

	it("keeps a host's words out of the user's part whatever they say, and bounds them in the operators' line", () => {
		const noisy = `memory\u0007 pressure Bearer abc.def token=s3cret <b>${"x".repeat(400)}`;
		const fleet = [report("h-00", { free: 0, refusing: noisy })];
		for (let i = 1; i < 12; i++) fleet.push(report(`h-${String(i).padStart(2, "0")}`, { running: 20, free: 0 }));
		const { placement, hosts } = describeWait(fleet, attempt, 60);
		expect(JSON.stringify(placement)).not.toMatch(/h-0|memory|slots|s3cret/);
		expect(hosts).toMatch(/^all 12 hosts busy: memory pressure Bearer \[redacted\] token=\[redacted\] <b>x+… on h-00, /);
		expect(hosts).toMatch(/20 of 20 slots on h-03, and 8 more$/);
		expect(hosts).not.toContain("s3cret");
	});

	it("is the same for the same reports, in any order, so an unchanged fleet writes nothing", () => {
		const a = [report("a", { free: 0 }), report("b", { free: 2 })];
		expect(describeWait(a, attempt, 60)).toEqual(describeWait([...a].reverse(), attempt, 60));
	});
});
