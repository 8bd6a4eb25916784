/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import openapi from "../../../packages/client/openapi.json?raw";
import { DEFAULT_CARD_KINDS } from "../../../src/agent/copilot-document";
import { MEETING_STATUSES } from "../../../src/meetings/statuses";
import pageFacts from "../../../src/platforms/page-facts.ts?raw";
import { BotReportedStatus, CompletionCause, CompletionReason, FailureCause, FailureStage, JoinStep } from "../../../src/shapes/bot-status";
import { HelpKind } from "../../../src/shapes/help";
import { PlacementReason } from "../../../src/shapes/placement";
import { RECORDING_STATUSES } from "../../../src/shapes/recording";
import recordingShape from "../../../src/shapes/recording.ts?raw";
import { SUMMARY_STATUSES } from "../../../src/shapes/summary";
import {
	CARD_KIND_WORDS,
	CAUSE_WORDS,
	COMPLETION_CAUSE_WORDS,
	cardKindWords,
	detailWords,
	fieldWords,
	HELP_WORDS,
	helpKindWords,
	PAGE_STATE_WORDS,
	PLACEMENT_WORDS,
	REASON_WORDS,
	RECORDING_WORDS,
	reasonWords,
	recordingPlanWords,
	STAGE_WORDS,
	STATUS_WORDS,
	STEP_WORDS,
	SUMMARY_WORDS,
	statusHint,
	statusWords,
	stepWords,
	webhookTestWords,
} from "./index";

/** Words, not a code: no underscores or dotted paths, not empty, and not the code itself. */
function expectWords(code: string, words: string | undefined) {
	expect(words, `${code} has no words`).toBeTruthy();
	expect(words, `${code}'s words are a code`).not.toMatch(/_|\b\w+\.\w+\b/);
	if (code.includes("_")) expect(words).not.toBe(code);
}

/** Every value of each code list the API sends, beside the table that words it. */
const LISTS: [string, readonly string[], Record<string, string>][] = [
	["meeting status", MEETING_STATUSES, STATUS_WORDS],
	["bot status", BotReportedStatus.options, STATUS_WORDS],
	["completion reason", CompletionReason.options, REASON_WORDS],
	["completion cause", CompletionCause.options, COMPLETION_CAUSE_WORDS],
	["failure cause", FailureCause.options, CAUSE_WORDS],
	["failure stage", FailureStage.options, STAGE_WORDS],
	["join step", JoinStep.options, STEP_WORDS],
	["help kind", HelpKind.options, HELP_WORDS],
	["placement reason", PlacementReason.options, PLACEMENT_WORDS],
	["summary status", SUMMARY_STATUSES, SUMMARY_WORDS],
	["recording status", RECORDING_STATUSES, RECORDING_WORDS],
	["copilot card kind", DEFAULT_CARD_KINDS, CARD_KIND_WORDS],
];

describe("people's words for every code", () => {
	for (const [name, codes, table] of LISTS) {
		it(`words every ${name}`, () => {
			expect(codes.length).toBeGreaterThan(0);
			for (const code of codes) expectWords(code, table[code]);
		});
	}

	it("words every page state a driver reports (the PageState union)", () => {
		const union = /export type PageState =([^;]+);/.exec(pageFacts)?.[1] ?? "";
		const states = [...union.matchAll(/\|\s*"(\w+)"/g)].map((m) => m[1] ?? "");
		expect(states).toContain("unknown");
		for (const state of states) expectWords(state, (PAGE_STATE_WORDS as Record<string, string>)[state]);
		expect(Object.keys(PAGE_STATE_WORDS).sort()).toEqual([...states].sort());
	});

	it("words the recording statuses the API documents", () => {
		const documented = /"`in_progress`[^;"]*/.exec(recordingShape)?.[0] ?? "";
		expect([...documented.matchAll(/`(\w+)`/g)].map((m) => m[1])).toEqual([...RECORDING_STATUSES]);
	});

	it("spells out a code no table knows yet, never showing its underscores", () => {
		expect(reasonWords("something_new")).toBe("something new");
		expect(statusWords("paused_for_host")).toBe("paused for host");
		expect(stepWords("new_step")).toBe("new step");
		expect(stepWords(null)).toBe("not reported");
		expect(cardKindWords("ACTION_ITEM")).toBe("Action item");
		expect(cardKindWords("follow_up")).toBe("Follow up");
		expect(helpKindWords("captcha")).toBe("a captcha or bot check");
		expect(helpKindWords("something_new")).toBe("something new");
	});

	it("asks the user what each live status needs, and of a bot that cannot read captions that they are on", () => {
		expect(statusHint("needs_help")).toMatch(/^The bot is stuck/);
		expect(statusHint("needs_help", "captcha")).toMatch(/^The bot is stuck/);
		expect(statusHint("needs_help", "captions_unreadable")).toBe(
			"The bot is in the call and still records, but it can read no captions while people talk: check that captions are on in the meeting.",
		);
		expect(statusHint("active", "captions_unreadable")).toBeNull();
	});

	it("says what a bot records: video at its size and audio, or audio alone", () => {
		const plan = { video: true, width: 1280, height: 720, frame_rate: 15, audio_format: "opus" };
		expect(recordingPlanWords(plan)).toBe("video 720p / audio");
		expect(recordingPlanWords({ ...plan, video: false })).toBe("audio");
		expect(recordingPlanWords({ ...plan, video: false, audio_format: "wav" })).toBe("audio, WAV");
	});

	it("names a stopped meeting without its code", () => {
		expect(reasonWords("stopped")).toBe("you stopped the bot (or it left on request)");
		expect(reasonWords(null)).toBeNull();
	});

	it("names a meeting the host ended by its cause, not as everyone else leaving", () => {
		expect(reasonWords("left_alone")).toBe("everyone else left");
		expect(reasonWords("left_alone", "ended_by_host")).toBe("the host ended the meeting");
	});
});

/** Every field name of the API's request bodies and query parameters (packages/client/openapi.json). */
function requestFields(): string[] {
	type Schema = {
		$ref?: string;
		properties?: Record<string, Schema>;
		items?: Schema;
		allOf?: Schema[];
		anyOf?: Schema[];
		oneOf?: Schema[];
	};
	type Operation = { parameters?: { in: string; name: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } };
	const spec = JSON.parse(openapi) as {
		paths: Record<string, Record<string, Operation>>;
		components: { schemas: Record<string, Schema> };
	};
	const fields = new Set<string>();
	const walk = (schema: Schema | undefined, depth: number) => {
		const s = schema?.$ref ? spec.components.schemas[schema.$ref.split("/").at(-1) ?? ""] : schema;
		if (!s || depth > 4) return;
		for (const branch of [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) walk(branch, depth);
		for (const [name, inner] of Object.entries(s.properties ?? {})) {
			fields.add(name);
			walk(inner, depth + 1);
		}
		walk(s.items, depth + 1);
	};
	for (const operations of Object.values(spec.paths))
		for (const op of Object.values(operations)) {
			for (const p of op.parameters ?? []) if (p.in !== "header") fields.add(p.name);
			walk(op.requestBody?.content?.["application/json"]?.schema, 0);
		}
	return [...fields];
}

describe("field names in validation errors", () => {
	it("names every field of the API's requests in words", () => {
		const fields = requestFields();
		expect(fields).toContain("meeting_url");
		for (const field of fields) expect(fieldWords(["body", field]), field).toMatch(/^[A-Z][^_]*$/);
	});

	it("shows a refusal's field as the form names it, not its path", () => {
		expect(fieldWords(["body", "meeting_url"])).toBe("Meeting link");
		expect(fieldWords(["query", "q"])).toBe("Search words");
		expect(fieldWords(["body", "recording_config", "video", "resolution"])).toBe("Recording config, video, resolution");
		expect(fieldWords(["body", "webhook_events", 2])).toBe("Webhook events #3");
		expect(fieldWords(["body"])).toBe("");
		expect(detailWords("body.meeting_url: not a meeting link")).toBe("Meeting link: not a meeting link");
		expect(detailWords("query.meeting: no such meeting")).toBe("Meeting: no such meeting");
		expect(detailWords("Missing API key")).toBe("Missing API key");
	});
});

describe("a test webhook's result", () => {
	it("says what came of it: delivered, refused with its status, unreachable, or not sent", () => {
		const base = { status_code: 200, duration_ms: 45, error: null, target_host: "hooks.example.com" };
		expect(webhookTestWords({ ...base, outcome: "delivered" })).toBe("Test webhook delivered to hooks.example.com: HTTP 200 in 45 ms.");
		expect(webhookTestWords({ ...base, outcome: "failed", status_code: 503 })).toBe(
			"Test webhook to hooks.example.com failed: it answered HTTP 503 in 45 ms.",
		);
		expect(webhookTestWords({ ...base, outcome: "failed", status_code: null, duration_ms: 10_000, error: "no answer within 10 s" })).toBe(
			"Test webhook to hooks.example.com failed: no answer within 10 s after 10000 ms.",
		);
		expect(
			webhookTestWords({
				...base,
				outcome: "blocked",
				status_code: null,
				duration_ms: null,
				error: "the outbound guard refused the address",
			}),
		).toBe("Test webhook not sent to hooks.example.com: the outbound guard refused the address.");
	});
});
