/**
 * GET /agent[/api]/meeting/copilot (docs/meeting-stream.md#where-a-meetings-copilot-is): where a
 * meeting's copilot is, so a client offers Start only when none runs: none, running, paused
 * (processing off), ended; for the meeting named as a person names it, and not for others' meetings.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../../shared/wait";
import { liveMeeting } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { copilotOwner, processCopilot, startCopilot } from "./copilot-helpers";

const copilotOf = async (headers: Record<string, string>, ref: string, prefix = "/agent") => {
	const res = await call("GET", `${prefix}/meeting/copilot?meeting=${encodeURIComponent(ref)}`, { headers });
	return { status: res.status, body: await json<Record<string, unknown>>(res) };
};

describe("GET /agent/meeting/copilot", () => {
	it("says none, running, paused, running again and ended as the copilot goes", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		const id = live.meeting.id;
		expect(await copilotOf(owner.headers, String(id))).toEqual({ status: 200, body: { meeting: id, copilot: "none" } });

		await startCopilot(owner.headers, live.code);
		// By its code or its link, on either prefix, as meeting/resolve names it.
		expect(await copilotOf(owner.headers, live.code)).toEqual({ status: 200, body: { meeting: id, copilot: "running" } });
		expect((await copilotOf(owner.headers, `https://meet.google.com/${live.code}`, "/agent/api")).body.copilot).toBe("running");

		expect((await processCopilot(owner.headers, live.code, false)).status).toBe(202);
		expect((await copilotOf(owner.headers, String(id))).body.copilot).toBe("paused");
		expect((await processCopilot(owner.headers, live.code, true)).status).toBe(202);
		expect((await copilotOf(owner.headers, String(id))).body.copilot).toBe("running");

		await live.bot.status("completed", { completion_reason: "stopped" });
		await eventually("the copilot ended with the meeting", async () =>
			(await copilotOf(owner.headers, String(id))).body.copilot === "ended" ? true : undefined,
		);
	});

	it("answers 404 for another user's meeting and 422 for words that name no meeting", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		const stranger = await userWithKey();
		const other = await copilotOf(stranger.headers, String(live.meeting.id));
		expect(other.status).toBe(404);
		expect(JSON.stringify(other.body)).not.toContain("running");
		const empty = await copilotOf(owner.headers, " ");
		expect(empty.status).toBe(422);
		expect(JSON.stringify(empty.body)).toContain("Type a meeting's number");
	});
});
