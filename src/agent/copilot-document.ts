/**
 * The copilot's words on paper: its settings from `agents/meeting.md` frontmatter and the
 * meeting document it commits at the end (`kg/entities/meeting/<native_id>.md`). Everything from
 * the meeting (title, names, what was said) is attacker-controlled: YAML values are quoted
 * (JSON strings are valid YAML), titles lose their line breaks, and the body cannot end the
 * frontmatter because the frontmatter is written first and closed before it.
 */

import { parseFrontmatter } from "../workspace/okf";

export const COPILOT_CONFIG_PATH = "agents/meeting.md";

export interface CopilotConfig {
	enabled: boolean;
	/** A model name that replaces the owner's meeting model (same provider). */
	model: string | null;
	/** A beat every this many completed segments (and on a new speaker). */
	cadence_segments: number;
	card_kinds: string[];
	write_meeting_doc: boolean;
}

/** What the copilot makes cards about unless `card_kinds` says otherwise (the dashboard words each: dashboard/src/words/cards.ts). */
export const DEFAULT_CARD_KINDS = ["person", "company", "product", "action_item"] as const;

export const DEFAULT_COPILOT_CONFIG: CopilotConfig = {
	enabled: true,
	model: null,
	cadence_segments: 4,
	card_kinds: [...DEFAULT_CARD_KINDS],
	write_meeting_doc: true,
};

const MAX_CADENCE = 50;
const MAX_CARD_KINDS = 12;

/** The copilot's settings from `agents/meeting.md`; anything missing or unreadable keeps its default. */
export function copilotConfigOf(markdown: string | null): CopilotConfig {
	if (!markdown) return DEFAULT_COPILOT_CONFIG;
	const fields = parseFrontmatter(markdown)?.data ?? {};
	const text = (key: string) => fields[key];
	const flag = (key: string, fallback: boolean) => {
		const value = text(key)?.toLowerCase();
		return value === "false" || value === "no" ? false : value === "true" || value === "yes" ? true : fallback;
	};
	const cadence = Number.parseInt(text("cadence_segments") ?? "", 10);
	// `card_kinds: person,company` or `[person, company]` (flat frontmatter: no YAML lists).
	const kindList = (text("card_kinds") ?? "")
		.replace(/^\[|\]$/g, "")
		.split(",")
		.map((k) =>
			k
				.trim()
				.replace(/^["']|["']$/g, "")
				.toLowerCase(),
		)
		.filter((k) => /^[a-z][a-z0-9_]{0,39}$/.test(k))
		.slice(0, MAX_CARD_KINDS);
	const model = text("model")?.trim();
	return {
		enabled: flag("enabled", true),
		model: model && model.length <= 200 ? model : null,
		cadence_segments: Number.isInteger(cadence) && cadence >= 1 ? Math.min(cadence, MAX_CADENCE) : DEFAULT_COPILOT_CONFIG.cadence_segments,
		card_kinds: kindList.length > 0 ? kindList : DEFAULT_COPILOT_CONFIG.card_kinds,
		write_meeting_doc: flag("write_meeting_doc", true),
	};
}

/** One line, no control characters, bounded: for titles and names that land in headings and messages. */
export function oneLine(text: string, max = 200): string {
	return text
		.replace(/[\p{Cc}\u2028\u2029]+/gu, " ")
		.replace(/\s+/g, " ")
		.trim()
		.slice(0, max);
}

/** A YAML scalar that is always a string, whatever it holds (a JSON string is YAML). */
export const yamlString = (text: string) => JSON.stringify(oneLine(text, 500));

export interface MeetingDocument {
	nativeId: string;
	platform: string;
	title: string | null;
	/** The meeting's day, YYYY-MM-DD. */
	date: string;
	summary: string;
}

/** The native id is already free of `/`, `?` and controls (nativeMeetingIdProblem); anything else odd becomes `_`. */
export const meetingDocumentPath = (nativeId: string) => `kg/entities/meeting/${nativeId.replace(/[^\w.@:+=-]/g, "_")}.md`;

export function meetingTitle(doc: Pick<MeetingDocument, "title" | "nativeId">): string {
	return oneLine(doc.title ?? "") || `Meeting ${oneLine(doc.nativeId)}`;
}

/** The meeting as an Open Knowledge Format entity: typed frontmatter, then the summary. */
export function meetingDocument(doc: MeetingDocument): string {
	const title = meetingTitle(doc);
	const frontmatter = [
		"---",
		"type: meeting",
		`id: ${yamlString(doc.nativeId)}`,
		`title: ${yamlString(title)}`,
		`meeting_id: ${yamlString(doc.nativeId)}`,
		`session_uid: ${yamlString(doc.nativeId)}`,
		`platform: ${yamlString(doc.platform)}`,
		`date: ${yamlString(doc.date)}`,
		"---",
	];
	return `${frontmatter.join("\n")}\n\n# ${title}\n\n## Summary\n\n${doc.summary.trim() || "(nothing was said)"}\n`;
}

export interface TranscriptLine {
	speaker: string;
	text: string;
}

/** Transcript lines as the model and the document see them: `speaker: text`, one per line. */
export function transcriptText(lines: TranscriptLine[], maxChars: number): string {
	const out: string[] = [];
	let used = 0;
	// The newest lines matter most: walk back from the end until the budget is spent.
	for (let i = lines.length - 1; i >= 0; i--) {
		const line = lines[i];
		if (!line) continue;
		const text = `${oneLine(line.speaker, 80) || "Unknown"}: ${oneLine(line.text, 2000)}`;
		if (used + text.length + 1 > maxChars) break;
		out.unshift(text);
		used += text.length + 1;
	}
	return out.join("\n");
}

/**
 * Without a model summary, the summary is an excerpt of what was said, headed by `why` there is
 * none (our own words, e.g. "no model is configured: …" or "the model call failed …").
 */
export function excerptSummary(lines: TranscriptLine[], why: string): string {
	const text = transcriptText(lines, 4000);
	if (!text) return "";
	const quoted = text
		.split("\n")
		.map((l) => `> ${l}`)
		.join("\n");
	return `No model summary: ${why}.\n\nTranscript excerpt:\n\n${quoted}`;
}
