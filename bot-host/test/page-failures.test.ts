/**
 * A meeting page that never becomes a meeting: the bot's final status names what went wrong
 * in words (the network error, the HTTP status), and never repeats the passcode or the link's
 * query, which may carry it.
 */
import { describe, expect, it } from "vitest";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

const PASSCODE = "s3cretpass";

describe("a meeting page that does not open", () => {
	const world = useWorld();

	it("fails with the page's HTTP status when the link leads to an error page", async () => {
		const bot = await spawnBot(
			world,
			"teams",
			{ passcode: PASSCODE, participants: [{ name: "Uma" }] },
			// Teams opens links as given; the sandbox answers 404 for a path that is no meeting.
			{ linkFor: (id) => `https://teams.microsoft.com/no-such-page/${id}?p=${PASSCODE}` },
		);
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({
			status: "failed",
			completion_reason: "join_failure",
			failure_stage: "joining",
			join_step: "open_page",
			reason: "the meeting page answered 404",
		});
		expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual(["joining", "failed"]);
		expect(world.sandbox.observed(bot.nativeId)?.attendees).toEqual([]);
	});

	it("fails with the network error when the meeting host does not resolve, without the passcode", async () => {
		const bot = await spawnBot(
			world,
			"teams",
			{ passcode: PASSCODE, participants: [{ name: "Vic" }] },
			{ linkFor: (id) => `https://teams.example.invalid/meet/${id}?p=${PASSCODE}` },
		);
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({
			status: "failed",
			completion_reason: "join_failure",
			failure_stage: "joining",
			join_step: "open_page",
			reason: "could not load the meeting page: net::ERR_NAME_NOT_RESOLVED",
		});
		expect(JSON.stringify(world.room.received(bot.meetingId))).not.toContain(PASSCODE);
	});
});
