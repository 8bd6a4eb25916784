/**
 * A bot sent with an engine its host cannot run (the built-in engine on a host with no speech
 * service) still transcribes: from the platform's captions, in a real sandbox Meet call. It tells
 * the room which engine could not start and why, which the meeting's record keeps
 * (`data.transcription_fallback`), so a transcript from captions is never a silent surprise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BotToRoom } from "../../src/bot-channel/protocol.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { applied, finalStatus, segmentsOf } from "./room.ts";

describe("an engine that cannot start on the bot's host", () => {
	const world = useWorld();
	const speechUrl = process.env.SPEECH_URL;
	beforeAll(() => {
		delete process.env.SPEECH_URL;
	});
	afterAll(() => {
		if (speechUrl !== undefined) process.env.SPEECH_URL = speechUrl;
	});

	it("leaves the bot on the captions, and the room is told which engine and why", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Ada Lovelace", lines: ["The captions carry this meeting today."] }] },
			{ engine: "builtin" },
		);
		const confirmed = await world.room.until(bot.meetingId, (r) => segmentsOf(r).find((s) => s.completed && s.speaker === "Ada Lovelace"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);

		expect(confirmed).toMatchObject({ text: "The captions carry this meeting today.", source: "captions" });
		const notes = applied(world.room.received(bot.meetingId)).filter(
			(m): m is Extract<BotToRoom, { type: "transcription" }> => m.type === "transcription",
		);
		expect(notes).toEqual([
			expect.objectContaining({
				state: "fallback",
				engine: "builtin",
				reason: "this bot host has no speech service (SPEECH_URL)",
				timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
			}),
		]);
	});
});
