/**
 * A Zoom bot sent before the host starts the meeting: Zoom shows "This meeting link is invalid
 * (3,001)" under the title "Error - Zoom" on every load of the join link until then (Vexa
 * join.ts, which re-opens the page every 15 s for 10 min). The bot waits, bounded by
 * `automatic_leave.max_wait_for_host`, says so in its status, and never asks for help. A link to
 * no meeting looks the same, so it waits the same bound; a wrong passcode still fails at once.
 */
import { describe, expect, it } from "vitest";
import { meetingLink, spawnBot, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

describe("a Zoom bot before the host starts the meeting", () => {
	// The page is re-opened every second here (15 s on the real client) so the test stays short.
	const world = useWorld({ hostRecheckMs: 1_000 });

	const reported = (meetingId: number) => statusesOf(world.room.received(meetingId)).map((s) => [s.status, s.reason ?? null]);

	it("waits on the 3,001 page, saying so, past the help grace, and joins once the host starts", async () => {
		const bot = await spawnBot(world, "zoom", {
			// Longer than the help grace (5 s here): the wait is not an unknown screen.
			host_starts_after_ms: 7_000,
			admit_after_ms: 500,
			participants: [{ name: "Alice Archer" }],
		});
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active" || s.status === "failed"));
		expect(reported(bot.meetingId)).toEqual([
			["joining", null],
			["joining", "waiting for the host to start the meeting (re-checking every 1 s, up to 10 min)"],
			["joining", "the host started the meeting; joining"],
			["awaiting_admission", null],
			["active", null],
		]);
		expect(world.sandbox.observed(bot.nativeId)?.attendees).toHaveLength(1);
		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
	});

	it("gives up after max_wait_for_host with a join failure that names the limit, for a link to no meeting too", async () => {
		const bot = await spawnBot(world, "zoom", {}, { unconfigured: true, automatic_leave: { max_wait_for_host: 2_500 } });
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({
			status: "failed",
			completion_reason: "join_failure",
			failure_stage: "joining",
			reason:
				"the host did not start the meeting within 2.5 s (max_wait_for_host): " +
				"the page kept saying it has not started, as it also does for a link to no meeting",
		});
		expect(reported(bot.meetingId).map(([status]) => status)).toEqual(["joining", "joining", "failed"]);
		expect(last.diagnostics?.page_state).toBe("waiting_for_host");
		expect(last.diagnostics?.page_text).toContain("This meeting link is invalid (3,001)");
	});

	it("still fails at once on a wrong passcode, which Zoom says on the pre-join", async () => {
		const bot = await spawnBot(
			world,
			"zoom",
			{ passcode: "s3cret", participants: [{ name: "Alice Archer" }] },
			{ passcode: "wrong", linkFor: (id) => meetingLink("zoom", id, "wrong") },
		);
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({
			status: "failed",
			completion_reason: "join_failure",
			reason: "meeting not found (invalid link, code or passcode)",
		});
		expect(reported(bot.meetingId).map(([status]) => status)).toEqual(["joining", "failed"]);
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ passcode_ok: false, phase: "not_found" });
	});
});
