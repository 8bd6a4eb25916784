/**
 * Asking again for a meeting's summary (POST /meetings/{id}/summary, docs/api.md#summaries): a
 * summary that failed, had no model, or was never made is made when the owner asks, once; a
 * pending or ready one is never made again, and nobody but the owner spends the owner's model.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { MODEL_KEY, MODEL_NAME, script, sent } from "../agent/helpers";
import { call, json } from "../support";
import { meetingSaying, owner, reply, type SummaryAnswer, settledSummary } from "./summary-fixtures";

function askAgain(headers: Record<string, string>, id: number | string) {
	return call("POST", `/meetings/${id}/summary`, { headers });
}

async function detailOf(res: Response): Promise<unknown> {
	return (await json<{ detail: unknown }>(res)).detail;
}

describe("asking again for a meeting's summary", () => {
	it("a meeting that ended without a model is summarized once a model is set and the owner asks; then never again", async () => {
		const u = await owner(false);
		const code = meetCode();
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "Bob owns the budget review."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });
		expect((await settledSummary(u.headers, meeting.id)).status).toBe("no_model");

		// Still no model: nothing changes, and the answer says how to turn one on.
		const early = await askAgain(u.headers, meeting.id);
		expect(early.status).toBe(409);
		expect(await detailOf(early)).toMatch(/No model is configured: set one under Settings/);
		expect((await settledSummary(u.headers, meeting.id)).status).toBe("no_model");

		const set = await call("PUT", "/user/models", {
			headers: u.headers,
			json: { base_url: `${env.MODEL_SERVER_URL}/v1`, api_key: MODEL_KEY, model: MODEL_NAME },
		});
		expect(set.status).toBe(200);
		await set.body?.cancel();
		await script(code, [
			{ text: [reply({ summary: "Bob reviews the budget.", decisions: [], action_items: [{ text: "Review the budget", owner: "Bob" }] })] },
		]);

		const asked = await askAgain(u.headers, meeting.id);
		expect(asked.status).toBe(202);
		expect(await json<SummaryAnswer>(asked)).toMatchObject({ meeting_id: meeting.id, status: "pending", model: MODEL_NAME });
		expect(await settledSummary(u.headers, meeting.id)).toMatchObject({
			status: "ready",
			summary: "Bob reviews the budget.",
			action_items: [{ text: "Review the budget", owner: "Bob" }],
		});

		const again = await askAgain(u.headers, meeting.id);
		expect(again.status).toBe(409);
		expect(await detailOf(again)).toBe("This meeting's summary is ready: a summary is made once");
		expect(await sent(code)).toHaveLength(1);
	});

	it("a failed summary is made again when asked, with one more model call", async () => {
		const u = await owner(true);
		const code = meetCode();
		await script(code, [{ status: 500 }, { text: [reply({ summary: "Second time lucky.", decisions: ["Retry"], action_items: [] })] }]);
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "Status update."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });
		expect((await settledSummary(u.headers, meeting.id)).status).toBe("failed");

		expect((await askAgain(u.headers, meeting.id)).status).toBe(202);
		expect(await settledSummary(u.headers, meeting.id)).toMatchObject({
			status: "ready",
			summary: "Second time lucky.",
			decisions: ["Retry"],
		});
		expect(await sent(code)).toHaveLength(2);
	});

	it("is refused for a live meeting, another user's meeting, and an id that is not a number, changing nothing", async () => {
		const u = await owner(true);
		const code = meetCode();
		const { meeting } = await meetingSaying(u.headers, [["Alice", "Still talking."]], code);

		const live = await askAgain(u.headers, meeting.id);
		expect(live.status).toBe(409);
		expect(await detailOf(live)).toBe("A summary is made once the meeting has completed; it is active");

		const stranger = await owner(true);
		const theirs = await askAgain(stranger.headers, meeting.id);
		expect(theirs.status).toBe(404);
		expect(await detailOf(theirs)).toBe("Meeting not found");

		const bad = await askAgain(u.headers, "abc");
		expect(bad.status).toBe(422);
		await bad.body?.cancel();
		expect(await sent(code)).toHaveLength(0);
	});
});
