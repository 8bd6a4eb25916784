/**
 * The meeting situations every platform driver must get right, run against that platform's
 * sandbox page in real headless Chromium: assertions are on the bot channel and on what the
 * sandbox meeting observed.
 */
import { describe, expect, it } from "vitest";
import type { Platform } from "../../src/bot-channel/protocol.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, segmentsOf, statusesOf } from "./room.ts";

const ALICE = "Alice Archer";
const BOB = "Bob Baker";
const ALICE_LINE = "Good morning everyone, the numbers look great.";
const BOB_LINE = "Thanks Alice, let us review the plan.";

export function describePlatform(platform: Platform, options: { passcode?: string; speakerSource: "caption" | "active_speaker" }): void {
	describe(`${platform} bot in the sandbox`, () => {
		const world = useWorld();

		const finished = (meetingId: number) => world.room.until(meetingId, finalStatus);

		it("waits in the lobby, is admitted, and turns two speakers' captions into segments", async () => {
			const bot = await spawnBot(world, platform, {
				admit_after_ms: 700,
				interruptions: true,
				passcode: options.passcode ?? null,
				participants: [
					{ name: ALICE, lines: [ALICE_LINE] },
					{ name: BOB, lines: [BOB_LINE] },
				],
				chat: [
					{ sender: ALICE, text: "Agenda is in the doc", after_ms: 200 },
					// Someone named like the bot's own label in the chat panel is still someone else.
					{ sender: "You", text: "I am the bot", after_ms: 300 },
				],
			});
			const confirmed = await world.room.until(bot.meetingId, (received) => {
				const done = segmentsOf(received).filter((s) => s.completed);
				return done.some((s) => s.speaker === BOB) && done.some((s) => s.speaker === ALICE) ? done : undefined;
			});
			world.room.command(bot.meetingId, { action: "chat_send", text: "Hello from the notetaker" });
			await world.room.until(bot.meetingId, (r) => r.some((m) => m.type === "event" && m.name === "chat.sent"));
			const ownLine = await world.room.until(bot.meetingId, (r) =>
				r.find((m) => m.type === "chat" && m.message.text === "Hello from the notetaker"),
			);
			world.room.command(bot.meetingId, { action: "leave" });
			const last = await finished(bot.meetingId);
			const received = world.room.received(bot.meetingId);

			expect(statusesOf(received).map((s) => s.status)).toEqual(["joining", "awaiting_admission", "active", "completed"]);
			expect(last).toMatchObject({ completion_reason: "stopped", reason: "asked to leave (leave command)" });
			expect(confirmed.find((s) => s.speaker === ALICE)?.text).toBe(ALICE_LINE);
			expect(confirmed.find((s) => s.speaker === BOB)?.text).toBe(BOB_LINE);
			for (const s of confirmed) expect(s.speaker_source).toBe(options.speakerSource);
			// Drafts came first, and each confirmation re-uses its draft's segment_id.
			const all = segmentsOf(received);
			for (const s of confirmed) expect(all.some((d) => d.segment_id === s.segment_id && !d.completed)).toBe(true);
			const joins = received.flatMap((m) => (m.type === "participant" && m.event === "join" ? [m.participant.name] : []));
			expect(joins).toEqual(expect.arrayContaining([ALICE, BOB]));
			expect(received).toContainEqual(
				expect.objectContaining({
					type: "chat",
					message: expect.objectContaining({ sender: ALICE, text: "Agenda is in the doc", is_from_bot: false }),
				}),
			);

			expect(ownLine).toMatchObject({ message: { is_from_bot: true } });
			expect(received).toContainEqual(
				expect.objectContaining({ type: "chat", message: expect.objectContaining({ text: "I am the bot", is_from_bot: false }) }),
			);

			const seen = world.sandbox.observed(bot.nativeId);
			expect(seen?.bot_names).toEqual([bot.botName]);
			expect(seen?.attendees[0]).toMatchObject({ mic_on_at_join: false, camera_on_at_join: false, passcode_ok: true, left: true });
			expect(seen?.attendees[0]?.phases).toEqual(["lobby", "in_call", "left"]);
			expect(seen?.chat_sent.map((c) => c.text)).toEqual(["Hello from the notetaker"]);
			expect(seen?.mic.voiced_windows).toBe(0);
		});

		it("reports a denial as failed / awaiting_admission_rejected", async () => {
			const bot = await spawnBot(world, platform, { deny: true, deny_after_ms: 600, passcode: options.passcode ?? null });
			const last = await finished(bot.meetingId);
			expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual(["joining", "awaiting_admission", "failed"]);
			expect(last).toMatchObject({
				completion_reason: "awaiting_admission_rejected",
				failure_stage: "awaiting_admission",
				join_step: "lobby",
			});
			expect(last.reason).toMatch(/^the host denied the request to join/);
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "denied"]);
		});

		it("asks for help on a sign-in wall, and leaves when the room gives up on it", async () => {
			const bot = await spawnBot(world, platform, { sign_in_required: true, passcode: options.passcode ?? null });
			const asked = await world.room.until(bot.meetingId, (received) => statusesOf(received).find((s) => s.status === "needs_help"));
			expect(asked).toMatchObject({ reason: "the platform asks the bot to sign in", help: { kind: "sign_in_required" } });
			expect(asked.help?.page_text).toContain("Sign in");
			// The room's help timeout ends it with `leave`; the bot obeys while stuck.
			world.room.command(bot.meetingId, { action: "leave" });
			const last = await finished(bot.meetingId);
			expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual(["joining", "needs_help", "completed"]);
			expect(last).toMatchObject({ completion_reason: "stopped" });
			expect(world.sandbox.observed(bot.nativeId)?.attendees).toEqual([]);
		});

		it("gives up after the lobby timeout, failed as the room records it", async () => {
			const bot = await spawnBot(
				world,
				platform,
				{ lobby_forever: true, passcode: options.passcode ?? null },
				{ automatic_leave: { max_wait_for_admission: 1_500 } },
			);
			const last = await finished(bot.meetingId);
			expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual(["joining", "awaiting_admission", "failed"]);
			expect(last).toMatchObject({
				completion_reason: "awaiting_admission_timeout",
				failure_stage: "awaiting_admission",
				join_step: "lobby",
				reason: "lobby wait exceeded 1.5 s: nobody admitted the bot (max_wait_for_admission)",
			});
			// It leaves the lobby itself rather than just closing the browser.
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "left"]);
			// What it saw when it gave up, taken before it left: the lobby, and a screenshot the room holds.
			expect(last.diagnostics).toMatchObject({ page_state: "lobby", screenshot: expect.stringMatching(/^a1-failure-\d+\.jpg$/) });
			expect(world.room.screenshots(bot.meetingId).has(last.diagnostics?.screenshot ?? "")).toBe(true);
			expect(last.diagnostics?.steps.at(-1)?.step).toMatch(/^failed: lobby wait exceeded/);
		});

		it("reports a removal from the call as failed / evicted", async () => {
			const bot = await spawnBot(world, platform, {
				direct_join: true,
				remove_after_ms: 1_500,
				passcode: options.passcode ?? null,
				participants: [{ name: ALICE }],
			});
			const last = await finished(bot.meetingId);
			expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual(["joining", "active", "failed"]);
			expect(last).toMatchObject({
				completion_reason: "evicted",
				failure_stage: "active",
				join_step: "in_call",
				reason: "removed from the meeting",
			});
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["in_call", "removed"]);
		});

		it("reports the host ending the meeting as left_alone (the reference's enum) ended by the host, with the sentence", async () => {
			const bot = await spawnBot(world, platform, {
				admit_after_ms: 300,
				end_after_ms: 1_500,
				passcode: options.passcode ?? null,
				participants: [{ name: ALICE }],
			});
			const last = await finished(bot.meetingId);
			expect(last).toMatchObject({
				status: "completed",
				completion_reason: "left_alone",
				completion_cause: "ended_by_host",
				reason: "the host ended the meeting",
			});
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "in_call", "ended"]);
		});

		it("leaves when everyone else has left (left_alone)", async () => {
			const bot = await spawnBot(
				world,
				platform,
				{ direct_join: true, passcode: options.passcode ?? null, participants: [{ name: ALICE, leave_after_ms: 1_200 }] },
				{ automatic_leave: { max_time_left_alone: 1_000 } },
			);
			const last = await finished(bot.meetingId);
			const received = world.room.received(bot.meetingId);
			expect(last).toMatchObject({ completion_reason: "left_alone", reason: "everyone else left; alone for 1 s (max_time_left_alone)" });
			const events = received.flatMap((m) => (m.type === "participant" ? [`${m.event}:${m.participant.name}`] : []));
			expect(events).toEqual([`join:${ALICE}`, `leave:${ALICE}`]);
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true });
		});
	});
}
