import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";
import { liveMeeting } from "./helpers";

interface Participants {
	meeting_id: number;
	participants: { participant_id: string; name: string; joined_at: string | null; left_at: string | null }[];
}

describe("GET /meetings/{meeting_id}/participants", () => {
	it("lists who joined and left, as the bot reported them, and a rejoin clears the leave", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await liveMeeting(headers);
		const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();
		await bot.send({ type: "participant", event: "join", participant: { id: "p-1", name: "Alice" }, timestamp: at(1) });
		await bot.send({ type: "participant", event: "join", participant: { id: "p-2", name: "Bob" }, timestamp: at(2) });
		await bot.send({ type: "participant", event: "leave", participant: { id: "p-2", name: "Bob" }, timestamp: at(30) });
		await bot.send({ type: "participant", event: "leave", participant: { id: "p-1", name: "Alice" }, timestamp: at(40) });
		await bot.send({ type: "participant", event: "join", participant: { id: "p-1", name: "Alice" }, timestamp: at(50) });

		const res = await call("GET", `/meetings/${meeting.id}/participants`, { headers });
		expect(res.status).toBe(200);
		const body = await json<Participants>(res);
		expect(body.meeting_id).toBe(meeting.id);
		expect(body.participants.sort((a, b) => a.participant_id.localeCompare(b.participant_id))).toEqual([
			{ participant_id: "p-1", name: "Alice", joined_at: at(1), left_at: null },
			{ participant_id: "p-2", name: "Bob", joined_at: at(2), left_at: at(30) },
		]);
	});

	it("answers 404 for a meeting the key may not read", async () => {
		const owner = await userWithKey();
		const stranger = await userWithKey();
		const { meeting } = await liveMeeting(owner.headers);
		const res = await call("GET", `/meetings/${meeting.id}/participants`, { headers: stranger.headers });
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ detail: "Meeting not found" });
	});
});
