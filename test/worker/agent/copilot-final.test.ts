/**
 * The copilot's final beat and the summary in the meeting document: the model's summary whenever
 * a model is configured (a meeting model alone is enough; a model that answers with tool calls
 * alone is asked for the summary on its own); otherwise a transcript excerpt headed by the real
 * reason, never "no model" when there is one.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetingDocumentPath } from "../../../src/agent/copilot-document";
import { parseFrontmatter } from "../../../src/workspace/okf";
import { eventually } from "../../shared/wait";
import { fireStreamTimersNow, liveMeeting } from "../meetings/helpers";
import { ADMIN, call } from "../support";
import { copilotOwner, meetingDocument, ofType, said, startCopilot, streamEvents, workspaceFile } from "./copilot-helpers";
import { bodyOf, MODEL_KEY, script, sent } from "./helpers";

const marker = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}`;
const NO_MODEL = /no model is configured/i;

/** A meeting with a copilot titled with `m` (every beat's prompt carries it), where Alice spoke; the bot then leaves. */
async function meetingThatEnds(headers: Record<string, string>, m: string) {
	const live = await liveMeeting(headers);
	await startCopilot(headers, live.code, `Review ${m}`);
	await live.bot.send(said("s-1", "Alice", "We ship on Monday"));
	await eventually("the note", async () => ofType(await streamEvents(live.meeting.id), "note")[0]);
	await live.bot.status("completed", { completion_reason: "left_alone" });
	return live;
}

/** The document's summary section. */
const summaryOf = (content: string) => parseFrontmatter(content)?.body.split("## Summary\n")[1]?.trim() ?? "";

describe("the final beat with a model configured", () => {
	it("writes the model's summary when only a meeting model is set", async () => {
		const m = marker("meeting-model");
		await script(m, [{ text: ["Shipping ", "on Monday."] }]);
		const owner = await copilotOwner(false);
		const put = await call("PUT", "/user/models", {
			headers: owner.headers,
			json: { base_url: `${env.MODEL_SERVER_URL}/v1`, api_key: MODEL_KEY, meeting_model: "meeting-only-model" },
		});
		expect(put.status).toBe(200);
		const live = await meetingThatEnds(owner.headers, m);
		const file = await meetingDocument(owner.user.id, live.meeting.id, meetingDocumentPath(live.code));
		expect(summaryOf(file.content)).toBe("Shipping on Monday.");
		expect(file.content).not.toMatch(NO_MODEL);
		const final = bodyOf((await sent(m)).at(-1));
		expect(final.model).toBe("meeting-only-model");
		expect(final.messages.at(-1)?.content).toContain("The meeting has ended");
		expect(await sent(m)).toHaveLength(1);
		// The summary streamed as the final beat's text.
		const deltas = ofType(await streamEvents(live.meeting.id), "message-delta").map((d) => d.text);
		expect(deltas.join("")).toContain("Shipping on Monday.");
	});

	it("asks a model that answered with tool calls alone for the summary on its own, offered no tool", async () => {
		const m = marker("tools-then-text");
		const acme = { name: "add_card", arguments: { kind: "company", title: "Acme", body: "Ships Monday", actionable: false } };
		await script(m, [{ tool_calls: [acme] }, { text: ["Acme ships on Monday."] }]);
		const owner = await copilotOwner();
		const live = await meetingThatEnds(owner.headers, m);
		const file = await meetingDocument(owner.user.id, live.meeting.id, meetingDocumentPath(live.code));
		expect(summaryOf(file.content)).toBe("Acme ships on Monday.");
		const [first, second] = (await sent(m)).map(bodyOf);
		expect(first?.tools?.map((t) => t.function.name)).toEqual(["add_card"]);
		expect(second?.tools).toBeUndefined();
		expect(second?.messages[0]?.content).toContain("reply with text only");
		expect(second?.messages.at(-1)?.content).toContain("The meeting has ended");
		// The final beat's card is shown, once.
		expect(ofType(await streamEvents(live.meeting.id), "card").map((e) => e.card.title)).toEqual(["Acme"]);
	});

	it("says the model answered with no text when it gave none, asked twice, and shows only the card it was offered", async () => {
		const m = marker("silent-final");
		const acme = { name: "add_card", arguments: { kind: "company", title: "Acme", body: "x", actionable: false } };
		await script(m, [{ tool_calls: [acme] }, { tool_calls: [acme] }]);
		const owner = await copilotOwner();
		const live = await meetingThatEnds(owner.headers, m);
		const file = await meetingDocument(owner.user.id, live.meeting.id, meetingDocumentPath(live.code));
		const summary = summaryOf(file.content);
		expect(summary).toMatch(/^No model summary: the model answered with no text\.\n/);
		expect(summary).toContain("> Alice: We ship on Monday");
		expect(summary).not.toMatch(NO_MODEL);
		expect(await sent(m)).toHaveLength(2);
		// A tool call the second ask was not offered is not taken: one call, one card.
		const events = await streamEvents(live.meeting.id);
		expect(ofType(events, "tool-call")).toHaveLength(1);
		expect(ofType(events, "card")).toHaveLength(1);
	});

	it("says the model call failed, and how, after three failed final beats", async () => {
		const m = marker("failing-final");
		// The third attempt's first call answers; its follow-up for the summary fails: the attempts count whole final beats.
		await script(m, [{ status: 503 }, { status: 503 }, { tool_calls: [] }, { status: 503 }]);
		const owner = await copilotOwner();
		const live = await meetingThatEnds(owner.headers, m);
		const path = meetingDocumentPath(live.code);
		const file = await eventually("the document after three attempts", async () => {
			const found = await workspaceFile(owner.user.id, path).catch(() => null);
			if (found) return found;
			await fireStreamTimersNow(live.meeting.id);
			return undefined;
		});
		expect(await sent(m)).toHaveLength(4);
		const summary = summaryOf(file.content);
		expect(summary).toMatch(/^No model summary: the model call failed 3 times \(The model provider is unavailable \(HTTP 503\)/);
		expect(summary).not.toMatch(NO_MODEL);
		expect(summary).not.toContain("sk-live-provider-secret");
	});

	it("says the starting key was revoked when it was, and calls no model", async () => {
		const m = marker("revoked-final");
		const owner = await copilotOwner();
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code, `Review ${m}`);
		await live.bot.send(said("s-1", "Alice", "We ship on Monday"));
		await eventually("the note", async () => ofType(await streamEvents(live.meeting.id), "note")[0]);
		expect((await call("DELETE", `/admin/tokens/${owner.keyId}`, { headers: ADMIN })).status).toBe(204);
		await live.bot.status("completed", { completion_reason: "left_alone" });
		const file = await meetingDocument(owner.user.id, live.meeting.id, meetingDocumentPath(live.code));
		expect(summaryOf(file.content)).toMatch(
			/^No model summary: the API key that started the copilot was revoked or has expired\.\n\nTranscript excerpt:\n\n> Alice: We ship on Monday/,
		);
		expect(await sent(m)).toEqual([]);
	});
});

describe("the final beat without a model", () => {
	it("says so, and how to set one, above the transcript excerpt", async () => {
		const owner = await copilotOwner(false);
		const live = await meetingThatEnds(owner.headers, marker("no-model"));
		const file = await meetingDocument(owner.user.id, live.meeting.id, meetingDocumentPath(live.code));
		expect(summaryOf(file.content)).toBe(
			"No model summary: no model is configured: set base_url and model (or meeting_model) with PUT /user/models.\n\n" +
				"Transcript excerpt:\n\n> Alice: We ship on Monday",
		);
	});
});
