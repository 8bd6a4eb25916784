/** The users, meetings and reads the summary tests share (summaries.test.ts, summary-retry.test.ts). */
import { env, runDurableObjectAlarm } from "cloudflare:test";
import { expect } from "vitest";
import type { MeetingSummary } from "../../../src/meetings/meeting-summary";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { MODEL_KEY, MODEL_NAME } from "../agent/helpers";
import { call, json, roomOf } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook } from "../webhooks/receiver";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { segment, sendBot } from "./helpers";

export type SummaryAnswer = MeetingSummary & { meeting_id: number };

export const MEETING_MODEL = "summary-meeting-model";

/**
 * A user whose `meeting.completed` goes to a fresh hook; with `model`, /user/models points at the
 * model server (`meeting`: with a meeting model alone).
 */
export async function owner(model: boolean | "meeting") {
	const hook = newHook();
	const u = await userWithWebhook(hook.url, { events: { "meeting.completed": true } });
	if (model) {
		const name = model === "meeting" ? { meeting_model: MEETING_MODEL } : { model: MODEL_NAME };
		const res = await call("PUT", "/user/models", {
			headers: u.headers,
			json: { base_url: `${env.MODEL_SERVER_URL}/v1`, api_key: MODEL_KEY, ...name },
		});
		expect(res.status).toBe(200);
		await res.body?.cancel();
	}
	return { ...u, hook };
}

/** A live meeting whose bot says each line (speaker, text) in order. */
export async function meetingSaying(headers: Record<string, string>, lines: [string, string][], code = meetCode()) {
	const meeting = await sendBot(headers, code);
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("active");
	for (const [i, [speaker, text]] of lines.entries()) {
		await bot.send({ type: "segment", segment: segment({ segment_id: `s-${i}`, speaker, text, start: i * 5, end: i * 5 + 4 }) });
	}
	return { meeting, bot, code };
}

export function summaryRoute(headers: Record<string, string>, id: number) {
	return call("GET", `/meetings/${id}/summary`, { headers });
}

/** Polls the summary route until its status is no longer `pending`; runs the room's alarm meanwhile (its `summary` timer). */
export function settledSummary(headers: Record<string, string>, id: number): Promise<SummaryAnswer> {
	return eventually(`meeting ${id}'s summary`, async () => {
		const res = await summaryRoute(headers, id);
		if (res.status === 200) {
			const summary = await json<SummaryAnswer>(res);
			if (summary.status !== "pending") return summary;
		} else await res.body?.cancel();
		await runDurableObjectAlarm(roomOf(id));
		return undefined;
	});
}

/** A model's reply: the JSON asked for. */
export const reply = (value: unknown) => JSON.stringify(value);
