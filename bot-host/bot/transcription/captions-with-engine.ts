/**
 * Captions and an engine together (docs/bot-channel.md#captions-and-an-engine-together). The
 * platform's captions come quickly and name the speaker; an engine's confirmed text comes later
 * and is what the transcript keeps. The room replaces a draft only by the same `segment_id`, and
 * never removes one, so the two are merged here, before anything is sent, into one line of
 * stretches: the stretch open now shows as a draft the caption text no engine confirmation has
 * covered yet (or the engine's own draft while captions show nothing), and each engine
 * confirmation is sent under the open stretch's id, replacing that draft, whereupon a new stretch
 * opens with the caption text still uncovered. Caption text no engine confirmation covers (the
 * engine heard nothing there, or dropped it) is confirmed as captions, under a stretch id too. So
 * every id sent gets drafts, then one confirmation, and no stretch of speech is in the
 * transcript twice.
 */
import { type BotSegment, SEGMENT_TEXT_MAX } from "../../../src/bot-channel/protocol.ts";
import type { SpeechEngine } from "./speech-engine.ts";

/**
 * Caption text that appeared up to this long before an engine's stretch began is of that stretch:
 * captions trail speech, but the page is read and the audio captured with delays of their own (a
 * few hundred milliseconds). Kept short: what appeared earlier is of the speech before.
 */
export const EARLY_S = 0.5;
/** Captions trail speech: text that appeared up to this long after an engine's stretch ended is of it. */
export const LAG_S = 1.5;
/**
 * Caption text no engine confirmation covered this long after it appeared is confirmed as
 * captions: the engine is down or refused (a relay at its daily limit), or lags far behind. An
 * engine confirms an utterance (20 s at most) seconds after it ends, so this is only a floor
 * under a failing engine; a confirmation later than this for the same speech would stand beside it.
 */
export const HOLD_S = 60;

/** What one caption segment (an entry, or a piece of a long one) has shown so far. */
interface CaptionSeen {
	text: string;
	/** The text up to `upto` characters was on screen at `at` (seconds of the call), in order. */
	arrivals: { upto: number; at: number }[];
	/** Characters at the front already in the transcript (covered by an engine, or confirmed as captions). */
	covered: number;
	last: BotSegment;
}

/** A stretch of caption text not yet in the transcript, from one caption segment. */
interface Uncovered {
	seen: CaptionSeen;
	text: string;
	from: number;
	to: number;
	upto: number;
}

export class CaptionsWithEngine implements SpeechEngine {
	private readonly prefix: string;
	private readonly callStartedAt: number;
	private readonly emit: (segment: BotSegment) => void;
	private wrapped: SpeechEngine | null = null;
	/** Caption segments with text not yet in the transcript (or not confirmed by the tracker), in the order they showed. */
	private readonly captions = new Map<string, CaptionSeen>();
	/**
	 * Caption segments confirmed and wholly in the transcript: not looked at again, but kept, so
	 * one that changes after all (a platform rewriting a line) adds only what is new.
	 */
	private readonly settled = new Map<string, CaptionSeen>();
	/** The open stretch's number, and what its draft last said. */
	private stretch = 1;
	private shown: string | null = null;
	/** Each confirmed engine segment's id here, so its re-sends (a speaker bound later) keep it. */
	private readonly confirmedAs = new Map<string, string>();
	/** The engine's latest draft that has no confirmation yet. */
	private engineDraft: BotSegment | null = null;

	constructor(o: { prefix: string; callStartedAt: number; emit: (segment: BotSegment) => void }) {
		this.prefix = o.prefix;
		this.callStartedAt = o.callStartedAt;
		this.emit = o.emit;
	}

	/** The engine whose segments come in through `fromEngine`: it gets the audio, and its flush ends the merge. */
	around(engine: SpeechEngine): this {
		this.wrapped = engine;
		return this;
	}

	/** The engine inside, which the audio reaches. */
	get engine(): SpeechEngine | null {
		return this.wrapped;
	}

	get language(): string | null {
		return this.wrapped?.language ?? null;
	}

	set language(language: string | null) {
		if (this.wrapped) this.wrapped.language = language;
	}

	get task(): "transcribe" | "translate" | undefined {
		return this.wrapped?.task;
	}

	set task(task: "transcribe" | "translate" | undefined) {
		if (this.wrapped && task) this.wrapped.task = task;
	}

	push(pcm: Buffer, endMs: number): void {
		this.wrapped?.push(pcm, endMs);
	}

	/** The engine's last confirmations, then the caption text none of them covered, as captions. */
	async flush(): Promise<void> {
		try {
			await this.wrapped?.flush();
		} finally {
			this.confirmCaptionsBefore(Number.POSITIVE_INFINITY);
		}
	}

	/** A caption segment as the caption tracker sends it (its drafts and confirmation alike). */
	readonly fromCaptions = (segment: BotSegment): void => {
		const seen = this.captions.get(segment.segment_id) ??
			this.settled.get(segment.segment_id) ?? { text: "", arrivals: [], covered: 0, last: segment };
		this.settled.delete(segment.segment_id);
		this.captions.set(segment.segment_id, seen);
		seen.last = segment;
		if (segment.text !== seen.text) {
			// A platform rewrites captions in place: only what changed appeared now.
			let same = 0;
			while (same < seen.text.length && same < segment.text.length && seen.text[same] === segment.text[same]) same++;
			seen.arrivals = seen.arrivals.filter((a) => a.upto <= same);
			if (segment.text.length > same) seen.arrivals.push({ upto: segment.text.length, at: segment.end });
			// A word rewritten inside what is in the transcript already ("their" → "they're") moves its end.
			if (same < seen.covered) seen.covered = Math.max(same, seen.covered + segment.text.length - seen.text.length);
			seen.text = segment.text;
		}
		this.confirmCaptionsBefore(segment.end - HOLD_S);
		this.showDraft();
	};

	/** An engine segment: a draft shows while captions show nothing newer; a confirmation takes the open stretch. */
	readonly fromEngine = (segment: BotSegment): void => {
		const again = this.confirmedAs.get(segment.segment_id);
		if (again) {
			if (segment.completed) this.emit({ ...segment, segment_id: again });
			return;
		}
		if (!segment.completed) {
			this.engineDraft = segment;
			this.showDraft();
			return;
		}
		this.confirmCaptionsBefore(segment.start - EARLY_S);
		const covered = this.cover(segment.end + LAG_S);
		const id = this.stretchId();
		this.confirmedAs.set(segment.segment_id, id);
		this.emit({ ...segment, segment_id: id, ...namedByCaptions(segment, covered) });
		this.nextStretch();
		if (this.engineDraft?.segment_id === segment.segment_id) this.engineDraft = null;
		this.showDraft();
	};

	private stretchId(): string {
		return `${this.prefix}-merged-${this.stretch}`;
	}

	private nextStretch(): void {
		this.stretch++;
		this.shown = null;
	}

	/** Marks caption text as in the transcript, and sets aside a caption segment that has nothing more to give. */
	private take(part: Uncovered): void {
		part.seen.covered = part.upto;
		const id = part.seen.last.segment_id;
		if (part.seen.last.completed && part.upto >= part.seen.text.length) {
			this.captions.delete(id);
			this.settled.set(id, part.seen);
		}
	}

	/** Caption text not yet in the transcript that appeared before `before` (seconds), per caption segment. */
	private uncovered(before: number): Uncovered[] {
		const out: Uncovered[] = [];
		for (const seen of this.captions.values()) {
			const upto = Math.max(seen.covered, ...seen.arrivals.filter((a) => a.at < before).map((a) => a.upto));
			const text = seen.text.slice(pastWord(seen.text, seen.covered), upto).trim();
			if (text === "") continue;
			const times = seen.arrivals.filter((a) => a.upto > seen.covered && a.upto <= upto).map((a) => a.at);
			out.push({ seen, text, from: Math.min(...times), to: Math.max(...times), upto });
		}
		return out;
	}

	/** Caption text that appeared before `before` and no engine covered: confirmed as captions, a stretch each. */
	private confirmCaptionsBefore(before: number): void {
		for (const part of this.uncovered(before)) {
			this.take(part);
			this.emit(this.captionSegment(part.seen.last, part.text, part.from, part.to, true));
			this.nextStretch();
		}
	}

	/** Marks caption text that appeared by `until` as covered by an engine confirmation; characters per named speaker. */
	private cover(until: number): Map<string, number> {
		const named = new Map<string, number>();
		for (const part of this.uncovered(until)) {
			this.take(part);
			if (part.seen.last.speaker_source === "caption") {
				named.set(part.seen.last.speaker, (named.get(part.seen.last.speaker) ?? 0) + part.text.length);
			}
		}
		return named;
	}

	/** The open stretch's draft: the caption text not yet covered, else the engine's draft. */
	private showDraft(): void {
		const parts = this.uncovered(Number.POSITIVE_INFINITY);
		let draft: BotSegment | null = null;
		if (parts.length > 0) {
			const latest = parts.reduce((a, b) => (b.to >= a.to ? b : a));
			// Only a failing engine lets it grow: a draft keeps its latest words within what the room takes.
			const text = parts
				.map((p) => p.text)
				.join(" ")
				.slice(-SEGMENT_TEXT_MAX);
			draft = this.captionSegment(latest.seen.last, text, Math.min(...parts.map((p) => p.from)), latest.to, false);
		} else if (this.engineDraft) {
			draft = { ...this.engineDraft, segment_id: this.stretchId() };
		}
		if (!draft) return;
		const key = JSON.stringify([draft.text, draft.speaker, draft.speaker_source]);
		if (key === this.shown) return;
		this.shown = key;
		this.emit(draft);
	}

	private captionSegment(like: BotSegment, text: string, start: number, end: number, completed: boolean): BotSegment {
		const at = (s: number) => new Date(this.callStartedAt + s * 1000).toISOString();
		return {
			segment_id: this.stretchId(),
			speaker: like.speaker,
			speaker_source: like.speaker_source,
			text,
			start,
			end,
			language: like.language,
			completed,
			source: "captions",
			absolute_start_time: at(start),
			absolute_end_time: at(end),
		};
	}
}

/** Where the text taken so far ends: past the rest of a word it ended inside, since that word was taken with it. */
function pastWord(text: string, at: number): number {
	if (at === 0 || /\s/.test(text[at - 1] ?? " ")) return at;
	return at + (/^\S*/.exec(text.slice(at))?.[0].length ?? 0);
}

/**
 * The engine's segment named by the captions it covered, when they named one speaker for most of
 * its text: the speaking indicator is a guess beside a caption's name.
 */
function namedByCaptions(segment: BotSegment, covered: Map<string, number>): Pick<BotSegment, "speaker" | "speaker_source"> {
	if (segment.speaker_source === "caption" || covered.size === 0)
		return { speaker: segment.speaker, speaker_source: segment.speaker_source };
	const total = [...covered.values()].reduce((a, b) => a + b, 0);
	const [speaker, chars] = [...covered].reduce((a, b) => (b[1] > a[1] ? b : a));
	return chars * 2 > total ? { speaker, speaker_source: "caption" } : { speaker: segment.speaker, speaker_source: segment.speaker_source };
}
