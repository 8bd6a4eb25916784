/**
 * The meeting stream (`GET /agent/meeting/stream`, docs/meeting-stream.md#events-and-resume)
 * folded into what the copilot page shows: the live transcript, the copilot's notes, cards and
 * beats, and the meeting's end. Pure; the SSE `id` of the last event is kept as the cursor a
 * reconnect resumes from.
 */

import { cardKey, mergeCard } from "../../../src/agent/copilot-cards";
import type {
	CopilotNote,
	MeetingStreamEvent,
	CopilotCard as StreamCard,
	StreamTranscript,
} from "../../../src/agent/meeting-stream-events";

export type { CopilotNote };

/** A transcript line as the page keeps it: the stream's, without its wall-clock stamp. */
export type TranscriptLine = Omit<StreamTranscript, "type" | "tsMs">;

/** A card with the beat that last changed it; `id` is "" for a card logged before cards had ids. */
export type BeatCard = StreamCard & { turnId: string };

/** One model call of the copilot: its streamed text and the tools it called. */
export interface CopilotBeat {
	turnId: string;
	text: string;
	tools: string[];
}

export interface MeetingStreamState {
	lastEventId?: string;
	lines: TranscriptLine[];
	notes: CopilotNote[];
	cards: BeatCard[];
	beats: CopilotBeat[];
	ended?: { status: string; completionReason: string | null };
}

export const EMPTY_STREAM: MeetingStreamState = { lines: [], notes: [], cards: [], beats: [] };

/** The copilot page keeps the newest beats only: each is already summarised in its cards. */
const KEPT_BEATS = 20;

function str(value: unknown): string {
	return typeof value === "string" ? value : value === undefined || value === null ? "" : String(value);
}

function num(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function upsertLine(lines: TranscriptLine[], line: TranscriptLine): TranscriptLine[] {
	const at = lines.findIndex((l) => l.id === line.id);
	if (at >= 0) {
		// A late draft never replaces its confirmation (docs/api.md#transcripts).
		const existing = lines[at];
		if (existing?.completed && !line.completed) return lines;
		const next = [...lines];
		next[at] = line;
		return next;
	}
	const next = [...lines, line];
	// Segments can arrive out of order (a resend, a reconnect): keep them in spoken order.
	next.sort((a, b) => a.t - b.t);
	return next;
}

function upsertNote(notes: CopilotNote[], note: CopilotNote): CopilotNote[] {
	const at = notes.findIndex((n) => n.id === note.id);
	if (at < 0) return [...notes, note];
	const next = [...notes];
	next[at] = note;
	return next;
}

/**
 * One card per thing, as the copilot keeps them: a card the page has (by its id, or by its title
 * for a card logged before cards had ids) is updated in place, so a stream that replays cards
 * the page already shows adds none.
 */
function upsertCard(cards: BeatCard[], card: BeatCard): BeatCard[] {
	const key = cardKey(card.title);
	const at = cards.findIndex((c) => (card.id ? c.id === card.id : cardKey(c.title) === key));
	const existing = cards[at];
	if (!existing) return [...cards, card];
	const next = [...cards];
	// A card with an id is the copilot's merge already; one without is merged here by the same rule.
	next[at] = card.id ? card : mergeCard(existing, card).card;
	return next;
}

function updateBeat(beats: CopilotBeat[], turnId: string, change: (beat: CopilotBeat) => CopilotBeat): CopilotBeat[] {
	const at = beats.findIndex((b) => b.turnId === turnId);
	if (at >= 0) {
		const next = [...beats];
		next[at] = change(beats[at] as CopilotBeat);
		return next;
	}
	return [...beats, change({ turnId, text: "", tools: [] })].slice(-KEPT_BEATS);
}

/** One event as the client's SSE reader hands it over: its `id`, and its `data` line already parsed. */
export interface StreamEvent {
	id?: string;
	data: unknown;
}

export function applyStreamEvent(state: MeetingStreamState, event: StreamEvent): MeetingStreamState {
	const base = event.id ? { ...state, lastEventId: event.id } : state;
	// Typed as the Worker declares the events, yet each field is still checked: the page shows only what it can read.
	if (typeof event.data !== "object" || event.data === null) return base;
	const data = event.data as MeetingStreamEvent;
	switch (data.type) {
		case "transcript":
			return {
				...base,
				lines: upsertLine(base.lines, {
					id: str(data.id),
					speaker: str(data.speaker),
					text: str(data.text),
					t: num(data.t),
					completed: data.completed === true,
				}),
			};
		case "note": {
			const note: Partial<CopilotNote> | undefined = data.note;
			if (!note || typeof note !== "object") return base;
			return {
				...base,
				notes: upsertNote(base.notes, {
					id: str(note.id),
					text: str(note.text),
					speaker: note.speaker === undefined ? undefined : str(note.speaker),
					chapter: note.chapter === undefined ? undefined : str(note.chapter),
					t: typeof note.t === "number" ? note.t : undefined,
					pass: num(note.pass),
					frozen: note.frozen === true,
				}),
			};
		}
		case "card": {
			const card: Partial<StreamCard> | undefined = data.card;
			if (!card || typeof card !== "object") return base;
			return {
				...base,
				cards: upsertCard(base.cards, {
					id: str(card.id),
					kind: str(card.kind),
					title: str(card.title),
					body: str(card.body),
					actionable: card.actionable === true,
					turnId: str(data.turn_id),
				}),
			};
		}
		case "message-delta":
			return { ...base, beats: updateBeat(base.beats, str(data.turn_id), (b) => ({ ...b, text: b.text + str(data.text) })) };
		case "tool-call":
			return { ...base, beats: updateBeat(base.beats, str(data.turn_id), (b) => ({ ...b, tools: [...b.tools, str(data.tool)] })) };
		case "meeting-end":
			return {
				...base,
				ended: { status: str(data.status), completionReason: data.completion_reason == null ? null : str(data.completion_reason) },
			};
		default:
			return base;
	}
}

/** Whether an event is the meeting's end: the server closes the stream after it, and there is nothing to reconnect for. */
export function isMeetingEnd(event: Pick<StreamEvent, "data">): boolean {
	const { data } = event;
	return typeof data === "object" && data !== null && (data as { type?: unknown }).type === "meeting-end";
}

/** Waits before the next reconnect: 1 s, 2 s, 4 s … up to 15 s. */
export function reconnectDelay(failures: number): number {
	return Math.min(15_000, 1000 * 2 ** Math.max(0, failures));
}
