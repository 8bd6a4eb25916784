/**
 * A completed meeting's summary (docs/api.md#summaries), against the local OpenAI-compatible
 * model server (test/receiver/model-server.ts): made once by the owner's model, stored in
 * `data.summary`, carried by the `meeting.completed` webhook, readable over REST and MCP; never
 * made up without a model or from a reply that is not one.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import { findOwnedMeeting } from "../../../src/meetings/meeting-store";
import { MeetingSummary } from "../../../src/meetings/meeting-summary";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import { PROVIDER_SECRET_TEXT } from "../../receiver/model-script";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { bodyOf, MODEL_KEY, MODEL_NAME, type SentBody, script, sent } from "../agent/helpers";
import { answerOf, bearer, mcpClient } from "../mcp/mcp-client";
import { call, json, roomOf } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
// A copy of the webhook.v1 contract (shared/contracts/webhook.v1/webhook.schema.json): deliveries are checked against it.
import webhookContract from "../webhooks/golden/webhook.v1.schema.json";
import { newHook, received } from "../webhooks/receiver";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { getMeeting, segment, sendBot } from "./helpers";

type SummaryAnswer = MeetingSummary & { meeting_id: number };

const MEETING_MODEL = "summary-meeting-model";

/**
 * A user whose `meeting.completed` goes to a fresh hook; with `model`, /user/models points at the
 * model server (`meeting`: with a meeting model alone).
 */
async function owner(model: boolean | "meeting") {
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
async function meetingSaying(headers: Record<string, string>, lines: [string, string][], code = meetCode()) {
	const meeting = await sendBot(headers, code);
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("active");
	for (const [i, [speaker, text]] of lines.entries()) {
		await bot.send({ type: "segment", segment: segment({ segment_id: `s-${i}`, speaker, text, start: i * 5, end: i * 5 + 4 }) });
	}
	return { meeting, bot, code };
}

function summaryRoute(headers: Record<string, string>, id: number) {
	return call("GET", `/meetings/${id}/summary`, { headers });
}

/** Polls the summary route until its status is no longer `pending`; runs the room's alarm meanwhile (its `summary` timer). */
function settledSummary(headers: Record<string, string>, id: number): Promise<SummaryAnswer> {
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

const envelopeContract = new Validator({ $ref: "#/$defs/Envelope", $defs: webhookContract.$defs } as unknown as Schema, "2020-12");

/** The hook's one `meeting.completed` delivery: valid webhook.v1, its summary in the stored shape. */
async function completedEvent(path: string): Promise<WebhookEnvelope> {
	const [request] = await eventually("meeting.completed delivered", async () => {
		const got = await received(path);
		return got.length > 0 ? got : undefined;
	});
	const envelope = JSON.parse(request?.body ?? "{}") as WebhookEnvelope;
	const check = envelopeContract.validate(envelope);
	expect(check.errors.map((e: OutputUnit) => `${e.instanceLocation}: ${e.error}`)).toEqual([]);
	expect(envelope.event_type).toBe("meeting.completed");
	expect(MeetingSummary.safeParse(envelope.data.meeting.data.summary).success).toBe(true);
	return envelope;
}

const reply = (value: unknown) => JSON.stringify(value);

/** A `completed` record with one transcript line, written as the lifecycle leaves one, that no room has told of yet. */
async function completedRecord(userId: number, code: string, speaker: string, text: string) {
	const now = new Date().toISOString();
	const inserted = await env.DB.prepare(
		`INSERT INTO meetings (user_id, platform, native_meeting_id, constructed_meeting_url, status, completion_reason, start_time, end_time, created_at, updated_at)
		 VALUES (?, 'google_meet', ?, ?, 'completed', 'left_alone', ?, ?, ?, ?) RETURNING id`,
	)
		.bind(userId, code, `https://meet.google.com/${code}`, now, now, now, now)
		.first<{ id: number }>();
	if (!inserted) throw new Error("meeting not inserted");
	await env.DB.prepare(
		`INSERT INTO transcript_segments (meeting_id, segment_id, speaker, speaker_source, text, start, "end", completed, created_at, updated_at)
		 VALUES (?, 's-1', ?, 'caption', ?, 1, 2, 1, ?, ?)`,
	)
		.bind(inserted.id, speaker, text, now, now)
		.run();
	const row = await findOwnedMeeting(env, userId, inserted.id);
	if (!row) throw new Error("meeting not found");
	return row;
}

describe("meeting summaries", () => {
	it("summarizes a completed meeting once with the owner's model: stored, in meeting.completed, over REST and MCP", async () => {
		const u = await owner(true);
		const code = meetCode();
		const answer = reply({
			summary: "The team agreed to ship on Friday.\nBob takes the release notes.",
			decisions: ["Ship on Friday"],
			action_items: [{ text: "Write the release notes", owner: "Bob" }, { text: "Book the launch room", owner: "Mallory" }, "Tell support"],
		});
		// In pieces, as a streaming provider sends it.
		await script(code, [{ text: [answer.slice(0, 30), answer.slice(30, 90), answer.slice(90)] }]);
		const { meeting, bot } = await meetingSaying(
			u.headers,
			[
				["Alice", "Let us ship on Friday."],
				["Bob", "Agreed. I will write the release notes."],
			],
			code,
		);
		await bot.status("completed", { completion_reason: "left_alone" });

		const summary = await settledSummary(u.headers, meeting.id);
		expect(summary).toMatchObject({
			meeting_id: meeting.id,
			status: "ready",
			summary: "The team agreed to ship on Friday.\nBob takes the release notes.",
			decisions: ["Ship on Friday"],
			// Owners only where the transcript names them: Mallory never spoke nor was named.
			action_items: [
				{ text: "Write the release notes", owner: "Bob" },
				{ text: "Book the launch room", owner: null },
				{ text: "Tell support", owner: null },
			],
			model: MODEL_NAME,
			error: null,
		});
		expect(Date.parse(summary.generated_at ?? "")).not.toBeNaN();

		// The webhook waited for it.
		const event = await completedEvent(u.hook.path);
		expect(event.data.meeting.data.summary).toEqual((({ meeting_id: _m, ...rest }) => rest)(summary));
		// Every meeting record carries it.
		expect((await getMeeting(u.headers, meeting.id)).data.summary).toEqual(event.data.meeting.data.summary);

		// One streaming call: the transcript as data in its own message, the instructions last, the account's key.
		const [request, ...more] = await sent(code);
		expect(more).toHaveLength(0);
		const body = bodyOf(request) as SentBody;
		expect(body).toMatchObject({ model: MODEL_NAME, stream: true });
		expect(body.tools ?? []).toEqual([]);
		expect(body.messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
		expect(body.messages[1]?.content).toContain("Alice: Let us ship on Friday.\nBob: Agreed. I will write the release notes.");
		expect(body.messages[2]?.content).not.toContain("Let us ship");
		expect(request?.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);

		// The MCP tool answers what the route answers.
		const { client } = await mcpClient(bearer(u.key));
		const tool = answerOf<SummaryAnswer>(await client.callTool({ name: "get_meeting_summary", arguments: { meeting_id: meeting.id } }));
		expect(tool).toEqual({ isError: false, body: summary });
		await client.close();
	});

	it("never calls the model again: a second completion, concurrent triggers and the timers fired again", async () => {
		const u = await owner(true);
		const code = meetCode();
		await script(code, [
			{ text: [reply({ summary: "Short.", decisions: [], action_items: [] })] },
			{ text: [reply({ summary: "A second summary must not happen.", decisions: [], action_items: [] })] },
		]);
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "Hello."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });
		const first = await settledSummary(u.headers, meeting.id);
		expect(first.summary).toBe("Short.");

		// The completion told again, twice at once, with the record as it was before it had a summary (a redelivery).
		const completed = await findOwnedMeeting(env, u.user.id, meeting.id);
		if (!completed) throw new Error("the meeting is gone");
		const { summary: _summary, ...dataBefore } = completed.data;
		const withoutSummary = { ...completed, data: dataBefore };
		const step = { from: "active" as const, to: "completed" as const, actor: "bot" as const, at: new Date().toISOString() };
		await Promise.all([roomOf(meeting.id).announce(withoutSummary, step), roomOf(meeting.id).announce(withoutSummary, step)]);
		await runDurableObjectAlarm(roomOf(meeting.id));
		expect(await settledSummary(u.headers, meeting.id)).toEqual(first);
		expect(await sent(code)).toHaveLength(1);

		// A completed record with no summary yet, its completion told twice at once and the alarm run twice at once.
		const other = meetCode();
		await script(other, [
			{ text: [reply({ summary: "Once.", decisions: [], action_items: [] })] },
			{ text: [reply({ summary: "Twice must not happen.", decisions: [], action_items: [] })] },
		]);
		const row = await completedRecord(u.user.id, other, "Alice", "We met.");
		await Promise.all([roomOf(row.id).announce(row, step), roomOf(row.id).announce(row, step)]);
		await Promise.all([runDurableObjectAlarm(roomOf(row.id)), runDurableObjectAlarm(roomOf(row.id))]);
		expect((await settledSummary(u.headers, row.id)).summary).toBe("Once.");
		expect(await sent(other)).toHaveLength(1);
	});

	it("without a model: no_model at once, nothing asked or made up, and meeting.completed is not held", async () => {
		const u = await owner(false);
		const code = meetCode();
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "We decided nothing."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });

		const event = await completedEvent(u.hook.path);
		const expected = { status: "no_model", summary: null, decisions: [], action_items: [], model: null, generated_at: null, error: null };
		expect(event.data.meeting.data.summary).toEqual(expected);
		expect((await getMeeting(u.headers, meeting.id)).data.summary).toEqual(expected);
		expect(await json(await summaryRoute(u.headers, meeting.id))).toEqual({ meeting_id: meeting.id, ...expected });
		expect(await sent(code)).toHaveLength(0);

		// The metadata route writes beside it, never over it: a summary is not the caller's to write.
		const forged = { ...expected, status: "ready", summary: "Forged by the caller." };
		const patched = await call("PATCH", `/meetings/google_meet/${code}`, {
			headers: u.headers,
			json: { title: "Renamed", data: { summary: forged, topic: "kept" } },
		});
		expect(patched.status).toBe(200);
		expect((await json<{ data: Record<string, unknown> }>(patched)).data).toMatchObject({
			title: "Renamed",
			topic: "kept",
			summary: expected,
		});
		expect((await getMeeting(u.headers, meeting.id)).data.summary).toEqual(expected);
	});

	it("uses the meeting model, which alone is enough, as the copilot does", async () => {
		const u = await owner("meeting");
		const code = meetCode();
		await script(code, [{ text: [reply({ summary: "By the meeting model.", decisions: [], action_items: [] })] }]);
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "Hello."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });
		expect(await settledSummary(u.headers, meeting.id)).toMatchObject({
			status: "ready",
			summary: "By the meeting model.",
			model: MEETING_MODEL,
		});
		expect(bodyOf((await sent(code))[0]).model).toBe(MEETING_MODEL);
	});

	it("a reply that is not the JSON asked for is failed with a short error, never a summary made from it", async () => {
		const u = await owner(true);
		const code = meetCode();
		await script(code, [{ text: ["Sure! The meeting went well and everyone was happy."] }]);
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "Status update."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });

		const summary = await settledSummary(u.headers, meeting.id);
		expect(summary).toMatchObject({
			status: "failed",
			summary: null,
			decisions: [],
			action_items: [],
			model: MODEL_NAME,
			error: "The model's reply was not a summary in the expected JSON shape",
		});
		expect((await completedEvent(u.hook.path)).data.meeting.data.summary).toMatchObject({ status: "failed" });
	});

	it("a provider error is failed in the service's words, never the provider's text", async () => {
		const u = await owner(true);
		const code = meetCode();
		await script(code, [{ status: 500 }]);
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "Status update."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });

		const summary = await settledSummary(u.headers, meeting.id);
		expect(summary).toMatchObject({
			status: "failed",
			summary: null,
			error: "The model provider is unavailable (HTTP 500); try again later",
		});
		const event = await completedEvent(u.hook.path);
		expect(JSON.stringify(event)).not.toContain(PROVIDER_SECRET_TEXT);
		expect(JSON.stringify(summary)).not.toContain(PROVIDER_SECRET_TEXT);
	});

	it("a model that never finishes is failed after SUMMARY_TIMEOUT_S", async () => {
		const u = await owner(true);
		const code = meetCode();
		await script(code, [{ text: ['{"summary": "Half'], hang: true }]);
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "Status update."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });

		const summary = await settledSummary(u.headers, meeting.id);
		expect(summary).toMatchObject({ status: "failed", summary: null, error: "The model provider did not finish within 5 s" });
	});

	it("sends the model a bounded transcript: a long meeting's beginning and end, the middle left out and said so", async () => {
		const u = await owner(true);
		const code = meetCode();
		await script(code, [{ text: [reply({ summary: "Long.", decisions: [], action_items: [] })] }]);
		// 40 lines of about 110 characters: twice SUMMARY_MAX_TRANSCRIPT_CHARS (2000 in tests).
		const lines: [string, string][] = Array.from({ length: 40 }, (_, i) => [
			i % 2 ? "Bob" : "Alice",
			`Line ${String(i).padStart(2, "0")} ${"x".repeat(95)}`,
		]);
		const { meeting, bot } = await meetingSaying(u.headers, lines, code);
		await bot.status("completed", { completion_reason: "left_alone" });
		expect((await settledSummary(u.headers, meeting.id)).status).toBe("ready");

		const data = bodyOf((await sent(code))[0]).messages[1]?.content ?? "";
		const fenced = data.slice(data.indexOf("<<<TRANSCRIPT"), data.indexOf("TRANSCRIPT>>>"));
		expect(fenced.length).toBeLessThanOrEqual(2000 + 100);
		expect(fenced).toContain("Alice: Line 00");
		expect(fenced).toContain("Bob: Line 39");
		expect(fenced).not.toContain("Line 20");
		expect(fenced).toMatch(/\[… \d+ lines of the meeting's middle left out …\]/);
		expect(data).toMatch(/\d+ lines from its middle were left out for length/);
	});

	it("meeting.completed waits no longer than summary_release: it goes with the summary pending, which lands later", async () => {
		const u = await owner(true);
		const code = meetCode();
		const answer = reply({ summary: "Slow but sure.", decisions: [], action_items: [] });
		await script(code, [{ text: [answer.slice(0, 20), answer.slice(20, 40), answer.slice(40)], delay_ms: 1000 }]);
		const { meeting, bot } = await meetingSaying(u.headers, [["Alice", "Hello."]], code);
		await bot.status("completed", { completion_reason: "left_alone" });

		// The summary timer's alarm is in the model call...
		const calling = runDurableObjectAlarm(roomOf(meeting.id));
		await eventually("the model call", async () => ((await sent(code)).length > 0 ? true : undefined));
		expect(await received(u.hook.path)).toHaveLength(0);
		// ...when the wait for it runs out.
		await runInDurableObject(roomOf(meeting.id), async (_room: MeetingRoom, state) => {
			const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
			expect(timers.summary_release).toBeGreaterThan(Date.now());
			await state.storage.put(ROOM_KEYS.timers, { ...timers, summary_release: 0 });
			await state.storage.setAlarm(Date.now());
		});
		await runDurableObjectAlarm(roomOf(meeting.id));
		const event = await completedEvent(u.hook.path);
		expect(event.data.meeting.data.summary).toMatchObject({ status: "pending", summary: null, model: MODEL_NAME });

		await calling;
		expect((await settledSummary(u.headers, meeting.id)).summary).toBe("Slow but sure.");
		// The event went once: the summary's end sends no second one.
		expect(await received(u.hook.path)).toHaveLength(1);
		expect(await sent(code)).toHaveLength(1);
	});

	it("GET /meetings/{id}/summary is 404 while a meeting has none, and for a meeting the caller may not read", async () => {
		const u = await owner(true);
		const stranger = await owner(false);
		const meeting = await sendBot(u.headers, meetCode());
		const res = await summaryRoute(u.headers, meeting.id);
		expect(res.status).toBe(404);
		expect(await json(res)).toEqual({ detail: "This meeting has no summary yet: one is made when it completes (it is requested)" });
		const theirs = await summaryRoute(stranger.headers, meeting.id);
		expect(theirs.status).toBe(404);
		expect(await json(theirs)).toEqual({ detail: "Meeting not found" });
		const { client } = await mcpClient(bearer(u.key));
		const tool = answerOf(await client.callTool({ name: "get_meeting_summary", arguments: { meeting_id: meeting.id } }));
		expect(tool).toEqual({
			isError: true,
			body: { status: 404, detail: "This meeting has no summary yet: one is made when it completes (it is requested)" },
		});
		await client.close();
	});

	it("a meeting where nobody said anything is ready with no summary, and the model is not asked", async () => {
		const u = await owner(true);
		const code = meetCode();
		const { meeting, bot } = await meetingSaying(u.headers, [], code);
		await bot.status("completed", { completion_reason: "left_alone" });
		const summary = await settledSummary(u.headers, meeting.id);
		expect(summary).toMatchObject({ status: "ready", summary: null, decisions: [], action_items: [], model: null, error: null });
		expect((await completedEvent(u.hook.path)).data.meeting.data.summary).toMatchObject({ status: "ready", summary: null });
		expect(await sent(code)).toHaveLength(0);
	});
});
