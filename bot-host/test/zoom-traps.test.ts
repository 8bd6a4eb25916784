/**
 * The Zoom driver against the traps the sandbox's web client sets (pages/traps.ts ZOOM_TRAPS),
 * each what a maintained peer met on app.zoom.us: a covered or late Join, the permission prompt
 * before the name, the hiding footer, a reused caption span, the caption modals, captions the host
 * turned off, the end redirecting instead of showing its modal, and an "audio" footer label.
 */
import { describe, expect, it } from "vitest";
import { until } from "../../test/shared/wait.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, segmentsOf, statusesOf } from "./room.ts";

const ALICE = "Alice Archer";
const BOB = "Bob Baker";
const ALICE_LINE = "Good morning everyone, the numbers look great.";
const BOB_LINE = "Thanks Alice, let us review the plan.";

describe("the Zoom driver against the sandbox's traps", () => {
	const world = useWorld();

	const statuses = (meetingId: number) => statusesOf(world.room.received(meetingId)).map((s) => s.status);
	/** Waits for the bot to be in the call, or to have ended or asked for help instead; the statuses so far. */
	const settled = (meetingId: number) =>
		world.room.until(meetingId, (r) =>
			statusesOf(r).some((s) => ["active", "needs_help", "completed", "failed"].includes(s.status)) ? statuses(meetingId) : undefined,
		);
	/** The confirmed segments once every one of `speakers` has one, or whatever there is after 30 s. */
	const confirmed = (meetingId: number, speakers: string[]) => {
		const done = (r: ReturnType<typeof world.room.received>) => segmentsOf(r).filter((s) => s.completed);
		return Promise.race([
			world.room.until(meetingId, (r) => (speakers.every((name) => done(r).some((s) => s.speaker === name)) ? done(r) : undefined)),
			new Promise<ReturnType<typeof done>>((resolve) => setTimeout(() => resolve(done(world.room.received(meetingId))), 30_000)),
		]);
	};
	const leave = async (meetingId: number) => {
		world.room.command(meetingId, { action: "leave" });
		return world.room.until(meetingId, finalStatus);
	};

	it.each([
		["join_covered", "Join covered by .preview-meeting-info: clicked through the page"],
		["join_enabled_late", "Join still disabled for 3 s after the name: waited for"],
		["permission_before_name", "the permission prompt over the form, twice: cleared before the name"],
	])("gets in past %s (%s)", async (trap) => {
		const bot = await spawnBot(world, "zoom", { direct_join: true, traps: [trap], participants: [{ name: ALICE }] });
		expect(await settled(bot.meetingId)).toEqual(["joining", "active"]);
		const seen = world.sandbox.observed(bot.nativeId);
		expect(seen?.bot_names).toEqual([bot.botName]);
		expect(seen?.attendees[0]).toMatchObject({ phase: "in_call", mic_on_at_join: false, camera_on_at_join: false });
		expect(await leave(bot.meetingId)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		expect(statuses(bot.meetingId)).toEqual(["joining", "active", "completed"]);
	});

	it("keeps reading the call after the footer hides itself, and still leaves through it", async () => {
		const bot = await spawnBot(world, "zoom", {
			direct_join: true,
			traps: ["footer_autohide"],
			// Speech starts after the footer has hidden (1.5 s without the pointer moving).
			speech_start_ms: 3_500,
			participants: [
				{ name: ALICE, lines: [ALICE_LINE] },
				{ name: BOB, lines: [BOB_LINE] },
			],
		});
		const done = await confirmed(bot.meetingId, [ALICE, BOB]);
		expect(statuses(bot.meetingId)).toEqual(["joining", "active"]);
		expect(done.find((s) => s.speaker === ALICE)?.text).toBe(ALICE_LINE);
		expect(done.find((s) => s.speaker === BOB)?.text).toBe(BOB_LINE);
		expect(await leave(bot.meetingId)).toMatchObject({ completion_reason: "stopped" });
		expect(statuses(bot.meetingId)).toEqual(["joining", "active", "completed"]);
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true, phases: ["in_call", "left"] });
	});

	it("turns each line of a reused caption span into its own segment, with its speaker from Speaker View", async () => {
		const bot = await spawnBot(world, "zoom", {
			direct_join: true,
			traps: ["caption_span_reused"],
			participants: [
				{ name: ALICE, lines: [ALICE_LINE] },
				{ name: BOB, lines: [BOB_LINE] },
			],
		});
		const done = await confirmed(bot.meetingId, [ALICE, BOB]);
		expect(done.map((s) => [s.speaker, s.text])).toEqual([
			[ALICE, ALICE_LINE],
			[BOB, BOB_LINE],
		]);
		const alice = done.find((s) => s.speaker === ALICE);
		const bob = done.find((s) => s.speaker === BOB);
		expect(alice?.text).toBe(ALICE_LINE);
		expect(bob?.text).toBe(BOB_LINE);
		expect(alice?.segment_id).not.toBe(bob?.segment_id);
		for (const s of done) expect(s.speaker_source).toBe("active_speaker");
		await leave(bot.meetingId);
	});

	it("clicks Save and OK on the modals that follow Show Captions, then reads the captions", async () => {
		const bot = await spawnBot(world, "zoom", {
			direct_join: true,
			traps: ["caption_modals"],
			speech_start_ms: 1_500,
			participants: [{ name: ALICE, lines: [ALICE_LINE] }],
		});
		const done = await confirmed(bot.meetingId, [ALICE]);
		expect(done.find((s) => s.speaker === ALICE)?.text).toBe(ALICE_LINE);
		await leave(bot.meetingId);
	});

	it("types a German meeting's speaking language into the caption-language modal (A), so its captions read right", async () => {
		const line = "Guten Morgen, wir schauen uns heute die Zahlen für das Quartal an.";
		const bot = await spawnBot(
			world,
			"zoom",
			{ direct_join: true, spoken_language: "de", speech_start_ms: 1_500, participants: [{ name: ALICE, lines: [line] }] },
			{ language: "de" },
		);
		const done = await confirmed(bot.meetingId, [ALICE]);
		expect(done.find((s) => s.speaker === ALICE)).toMatchObject({ text: line, language: "de" });
		expect(world.sandbox.observed(bot.nativeId)?.choices.caption_language).toBe("German");
		await leave(bot.meetingId);
	});

	it("notes captions the host turned off, closes the menu, and keeps its chat and roster", async () => {
		const bot = await spawnBot(world, "zoom", {
			direct_join: true,
			traps: ["captions_disabled"],
			remove_after_ms: 5_000,
			participants: [{ name: ALICE, lines: [ALICE_LINE] }],
			chat: [{ sender: ALICE, text: "Agenda is in the doc", after_ms: 300 }],
		});
		await world.room.until(bot.meetingId, (r) => r.some((m) => m.type === "chat" && m.message.text === "Agenda is in the doc"));
		world.room.command(bot.meetingId, { action: "chat_send", text: "Hello from the notetaker" });
		await world.room.until(bot.meetingId, (r) => r.some((m) => m.type === "event" && m.name === "chat.sent"));
		// Removed, it fails: its diagnostics carry its steps.
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({ completion_reason: "evicted" });
		const steps = last.diagnostics?.steps.map((s) => s.step) ?? [];
		expect(steps).toContain("captions unavailable: Zoom shows no Captions item (the host turned captions off)");
		expect(steps.filter((s) => s.startsWith("captions unavailable"))).toHaveLength(1);
		expect(world.room.received(bot.meetingId).some((m) => m.type === "participant" && m.participant.name === ALICE)).toBe(true);
		expect(world.sandbox.observed(bot.nativeId)?.chat_sent.map((c) => c.text)).toEqual(["Hello from the notetaker"]);
	});

	it.each([
		["end_redirects_signin", "to app.zoom.us/signin"],
		["end_redirects_join", "back to /wc/<id>/join"],
	])(
		"reads the meeting's end when it redirects (%s: %s) instead of asking for help or lingering",
		async (trap) => {
			const bot = await spawnBot(world, "zoom", { direct_join: true, end_after_ms: 1_500, traps: [trap], participants: [{ name: ALICE }] });
			// V's audio-init grace: a redirect back to the join page counts only 20 s after admission.
			const last = await Promise.race([
				world.room.until(bot.meetingId, (r) => finalStatus(r) ?? statusesOf(r).find((s) => s.status === "needs_help")),
				new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 40_000)),
			]);
			expect(last).toMatchObject({
				status: "completed",
				completion_reason: "left_alone",
				completion_cause: "ended_by_host",
				reason: "the host ended the meeting",
			});
			expect(statuses(bot.meetingId)).toEqual(["joining", "active", "completed"]);
		},
		60_000,
	);

	it("asks for help on Zoom's bot wall (Vexa's 'We detected you may be a bot'), and joins once a person clears it", async () => {
		const bot = await spawnBot(world, "zoom", {
			interstitial: true,
			interstitial_kind: "bot_check",
			direct_join: true,
			participants: [{ name: ALICE }],
		});
		const asked = await world.room.until(bot.meetingId, (r) => statusesOf(r).find((s) => s.status === "needs_help"));
		expect(asked).toMatchObject({ help: { kind: "captcha" }, reason: "the platform asks for a captcha or a bot check" });
		await fetch(`${world.sandbox.controlUrl}/meetings/${bot.nativeId}/actions`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ action: "clear_interstitial" }),
		});
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		expect(statuses(bot.meetingId)).toEqual(["joining", "needs_help", "joining", "active"]);
		await leave(bot.meetingId);
	});

	it("switches its microphone by the footer button's text when its aria-label only says 'audio'", async () => {
		const bot = await spawnBot(world, "zoom", { direct_join: true, traps: ["audio_label"], participants: [{ name: ALICE }] });
		expect(await settled(bot.meetingId)).toEqual(["joining", "active"]);
		const seen = () => world.sandbox.observed(bot.nativeId);
		world.room.command(bot.meetingId, { action: "speak", text: "Hello everyone, I am taking notes today." });
		await world.room.until(bot.meetingId, (r) => r.some((m) => m.type === "event" && m.name === "speak.completed"));
		await until("the bot's microphone back off", () => seen()?.attendees[0]?.mic_on === false).catch(() => {});
		expect(seen()?.attendees[0]?.mic_history).toEqual([false, true, false]);
		expect(seen()?.mic.voiced_windows).toBeGreaterThan(0);
		await leave(bot.meetingId);
	});
});
