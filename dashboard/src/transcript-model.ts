/**
 * The live transcript as the dashboard holds it: the segments of the first GET, then every
 * `/ws` `transcript` bundle applied on top (docs/live-feed.md#server--client). Pure, so the
 * replacement rules are tested without a browser (transcript-model.test.ts).
 *
 * The rules, from the feed: a segment is identified by `segment_id` (a draft and its
 * confirmation share it); a bundle's `pending` is ALL of that speaker's open drafts, so it
 * replaces the speaker's earlier drafts; a draft never overwrites a confirmed segment; a
 * draft that moved to another speaker is dropped from the old speaker's bundle and appears in
 * the new one's.
 */
import type { Segment } from "./types";

/** A segment as it may arrive: either naming set for the times (docs/api.md#transcripts). */
export type WireSegment = Partial<Segment> & { segment_id: string; start_time?: number; end_time?: number };

export interface TranscriptBundle {
	speaker: string;
	confirmed: WireSegment[];
	pending: WireSegment[];
}

/** Segments by `segment_id`; treat as immutable (each change returns a new one). */
export type TranscriptState = ReadonlyMap<string, Segment>;

function normalise(wire: WireSegment, completed: boolean, speaker?: string): Segment {
	// Every other field the segment has (src/shapes/segment.ts) rides along as it came, so a new one needs no edit here.
	const { start_time: _start, end_time: _end, ...fields } = wire;
	return {
		...fields,
		segment_id: wire.segment_id,
		speaker: wire.speaker ?? speaker ?? null,
		text: typeof wire.text === "string" ? wire.text : "",
		start: Number(wire.start ?? wire.start_time ?? 0),
		end: Number(wire.end ?? wire.end_time ?? wire.start ?? wire.start_time ?? 0),
		language: wire.language ?? null,
		completed,
	};
}

export function fromSegments(segments: WireSegment[]): TranscriptState {
	const state = new Map<string, Segment>();
	for (const wire of segments) {
		if (typeof wire?.segment_id !== "string") continue;
		const existing = state.get(wire.segment_id);
		if (existing?.completed && wire.completed !== true) continue;
		state.set(wire.segment_id, normalise(wire, wire.completed === true));
	}
	return state;
}

export function applyBundle(state: TranscriptState, bundle: TranscriptBundle): TranscriptState {
	const next = new Map(state);
	const pendingIds = new Set(bundle.pending.map((s) => s.segment_id));
	// The bundle's pending list is the speaker's whole set of open drafts: any older draft of
	// this speaker that is not in it was confirmed, dropped or moved to another speaker.
	for (const [id, segment] of next) {
		if (!segment.completed && segment.speaker === bundle.speaker && !pendingIds.has(id)) next.delete(id);
	}
	for (const wire of bundle.confirmed) {
		if (typeof wire?.segment_id === "string") next.set(wire.segment_id, normalise(wire, true, bundle.speaker));
	}
	for (const wire of bundle.pending) {
		if (typeof wire?.segment_id !== "string") continue;
		if (next.get(wire.segment_id)?.completed) continue;
		next.set(wire.segment_id, normalise(wire, false, bundle.speaker));
	}
	return next;
}

/** The lines in spoken order: by start, then by segment id (as the API orders them). */
export function orderedLines(state: TranscriptState): Segment[] {
	return [...state.values()].sort((a, b) => a.start - b.start || (a.segment_id < b.segment_id ? -1 : a.segment_id > b.segment_id ? 1 : 0));
}
