/**
 * A Teams bot in the call, against the sandbox page's in-call traps (docs/sandbox.md#teams-web), in
 * real Chromium: who speaks by the lit outline (so silence is silence), only the `mainAudio` mix in
 * the recording, captions turned on the organiser's way, chat on an idle page, a machine-named
 * stream tile, the open mic's newer state, and the encryption end screen.
 */
import { describe, expect, it } from "vitest";
import { until } from "../../test/shared/wait.ts";
import { TEAMS_REDUNDANT_TONE_HZ } from "../sandbox/pages/teams.ts";
import { spawnBot, useProviders, useWorld } from "./harness.ts";
import { describeWav } from "./providers.ts";
import { finalStatus, segmentsOf, statusesOf } from "./room.ts";
import { toneShare, wavSamples } from "./tones.ts";

describe("a Teams bot in the call", () => {
	const world = useWorld();
	const providers = useProviders();

	it("leaves on silence_timeout when people are there but nobody speaks, on both page generations", async () => {
		const bots = await Promise.all(
			(["newer", "older"] as const).map((dom_version) =>
				spawnBot(
					world,
					"teams",
					{ dom_version, direct_join: true, participants: [{ name: "Ana" }, { name: "Ben" }] },
					{ automatic_leave: { silence_timeout: 2_500 } },
				),
			),
		);
		for (const bot of bots) {
			expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({
				status: "completed",
				completion_reason: "stopped",
				reason: "silence_timeout: no one spoke for 2.5 s",
			});
		}
	});

	it.each(["newer", "older"] as const)(
		"names the speaker by the lit outline and records only the mainAudio mix, not its redundant copy (%s page)",
		async (dom_version) => {
			const bot = await spawnBot(
				world,
				"teams",
				{
					dom_version,
					direct_join: true,
					// Captions the bot cannot read: they would name the speaker before the outline does.
					captions_unreadable: true,
					speech_gap_ms: 2_000,
					participants: [
						{ name: "Ada Lovelace", lines: ["The engine can weave algebraic patterns."] },
						{ name: "Charles Babbage", lines: ["Then let us build it."] },
					],
				},
				{
					transcription: { url: providers.url, token: null },
					recording_enabled: true,
					recording_upload_url: `${providers.url}/recordings/teams-${dom_version}.wav`,
				},
			);
			const confirmed = await world.room.until(bot.meetingId, (r) => {
				const done = segmentsOf(r).filter((s) => s.completed);
				return done.length >= 2 ? done : undefined;
			});
			world.room.command(bot.meetingId, { action: "leave" });
			await world.room.until(bot.meetingId, finalStatus);
			expect(confirmed.map((s) => [s.speaker, s.speaker_source])).toEqual([
				["Ada Lovelace", "active_speaker"],
				["Charles Babbage", "active_speaker"],
			]);
			const wav = providers.uploads.find((u) => u.path === `/recordings/teams-${dom_version}.wav`)?.body ?? Buffer.alloc(44);
			expect(describeWav(wav).rms).toBeGreaterThan(0.005);
			// The redundant copy carries the sandbox's marker tone: none of it may be in the recording.
			const { samples, rate } = wavSamples(wav);
			expect(toneShare(samples, rate, TEAMS_REDUNDANT_TONE_HZ)).toBeLessThan(0.05);
		},
	);

	it("turns captions on the organiser's way (More → Language and speech) and reads their nested lines", async () => {
		const bot = await spawnBot(world, "teams", {
			direct_join: true,
			traps: ["organizer_view"],
			participants: [{ name: "Olga Organiser", lines: ["Welcome to the quarterly review."] }],
		});
		const line = await world.room.until(bot.meetingId, (r) => segmentsOf(r).find((s) => s.completed));
		expect(line).toMatchObject({ speaker: "Olga Organiser", text: "Welcome to the quarterly review.", speaker_source: "caption" });
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
	});

	it("keeps an idle page receiving chat (A's mousemove) and counts no machine-named stream tile as a person", async () => {
		const bots = await Promise.all(
			(["newer", "older"] as const).map((dom_version) =>
				spawnBot(world, "teams", {
					dom_version,
					direct_join: true,
					traps: ["idle_chat", "unnamed_stream"],
					participants: [{ name: "Ana" }],
					chat: [{ sender: "Ana", text: "Are you still there?", after_ms: 4_000 }],
				}),
			),
		);
		for (const bot of bots) {
			await world.room.until(bot.meetingId, (r) => r.find((m) => m.type === "chat" && m.message.text === "Are you still there?"));
			world.room.command(bot.meetingId, { action: "leave" });
			await world.room.until(bot.meetingId, finalStatus);
			const people = world.room
				.received(bot.meetingId)
				.flatMap((m) => (m.type === "participant" ? [`${m.event}:${m.participant.name}`] : []));
			expect(people).toEqual(["join:Ana"]);
		}
	});

	it("mutes itself again after speaking when the open mic reads mic-volume-renderer", async () => {
		const bot = await spawnBot(world, "teams", { direct_join: true, participants: [{ name: "Ana" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		world.room.command(bot.meetingId, { action: "speak", text: "Hello, I am taking notes." });
		await world.room.until(bot.meetingId, (r) => r.some((m) => m.type === "event" && m.name === "speak.completed"));
		const seen = () => world.sandbox.observed(bot.nativeId)?.attendees[0];
		await until("the bot's microphone off again", () => seen()?.mic_history.length === 3);
		expect(seen()?.mic_history).toEqual([false, true, false]);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
	});

	it("reports the encryption end screen as a failure of its own, not the host ending the meeting", async () => {
		const bot = await spawnBot(world, "teams", {
			direct_join: true,
			end_after_ms: 2_000,
			traps: ["encryption_error"],
			participants: [{ name: "Ana" }],
		});
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({ status: "failed", failure_stage: "active" });
		expect(last.completion_reason).toBeUndefined();
		expect(last.reason).toBe("the call ended with an encryption error on the platform (not ended by the host)");
	});
});
