/**
 * Turns what the page shows into channel messages: caption entries become segments (drafts
 * while the text grows, one confirmation with the same segment_id once it settles or leaves
 * the screen), the participant list becomes join/leave events, new chat lines become chat.
 */
import { type BotSegment, CHAT_SENDER_MAX, CHAT_TEXT_MAX, type ChatMessage, SEGMENT_TEXT_MAX } from "../../src/bot-channel/protocol.ts";
import type { CaptionLine, ChatLine } from "../drivers/types.ts";
import { captionLanguage } from "./caption-language.ts";
import { shorten, splitText } from "./text-bounds.ts";
import { captionSpeller } from "./transcription/vocabulary.ts";

/**
 * The speaker of a segment nobody could be attributed to yet (`speaker_source: "none"`): a
 * provisional label, replaced under the same segment_id once the platform shows who spoke.
 */
export const PROVISIONAL_SPEAKER = "Unknown speaker";

interface TrackedCaption {
	/**
	 * The entry's text in pieces the room accepts, one segment each: the first keeps the entry's
	 * segment_id, later ones add "-2", "-3"… and start when the text first reached them.
	 */
	pieces: BotSegment[];
	text: string;
	lastChangeAt: number;
	confirmed: boolean;
}

export class CaptionTracker {
	private readonly entries = new Map<string, TrackedCaption>();
	private readonly prefix: string;
	private readonly callStartedAt: number;
	private readonly settleMs: number;
	private readonly emit: (segment: BotSegment) => void;
	private readonly maxText: number;
	/** Caption text in the vocabulary's spellings (docs/api.md#vocabulary). */
	private readonly spell: (text: string) => string;
	/** The language the meeting forces (`language` of the request or a reconfigure); null: auto-detect. */
	language: string | null;
	/** The language last read from the captions: the window's language for lines too short to tell. */
	private heard: string | null = null;
	/**
	 * When the reading last applied was taken. A tick's reading is taken at the tick's start and may be
	 * applied after a change the page pushed meanwhile: it is older news, and would take a new line
	 * for one that left the screen (and confirm it after its first words).
	 */
	private readAt = Number.NEGATIVE_INFINITY;

	constructor(o: {
		prefix: string;
		callStartedAt: number;
		settleMs: number;
		language: string | null;
		emit: (s: BotSegment) => void;
		maxText?: number;
		/** Words and names the captions are corrected to (the spawn's `vocabulary`). */
		vocabulary?: readonly string[];
	}) {
		this.prefix = o.prefix;
		this.callStartedAt = o.callStartedAt;
		this.settleMs = o.settleMs;
		this.language = o.language;
		this.emit = o.emit;
		this.maxText = o.maxText ?? SEGMENT_TEXT_MAX;
		this.spell = captionSpeller(o.vocabulary ?? []);
	}

	/** One reading of the captions on screen, taken at `now`; false (nothing done) when it is older than the last one. */
	update(lines: CaptionLine[], activeSpeakers: string[], now: number): boolean {
		if (now < this.readAt) return false;
		this.readAt = now;
		const onScreen = new Set<string>();
		for (const line of lines) {
			onScreen.add(line.key);
			if (line.text === "") continue;
			let entry = this.entries.get(line.key);
			if (!entry) {
				entry = { pieces: [this.newSegment(line, activeSpeakers, now)], text: "", lastChangeAt: now, confirmed: false };
				this.entries.set(line.key, entry);
				this.setText(entry, line.text, now);
				continue;
			}
			// A caption without a name keeps looking for the active speaker until it is confirmed,
			// and the drafts already sent are rebound at once rather than with the next word.
			const speaking = activeSpeakers[0];
			if (entry.pieces[0]?.speaker_source === "none" && speaking && !entry.confirmed) {
				for (const piece of entry.pieces) {
					piece.speaker = speaking;
					piece.speaker_source = "active_speaker";
					if (piece.text !== "") this.emit({ ...piece });
				}
			}
			if (line.text !== entry.text) {
				entry.lastChangeAt = now;
				entry.confirmed = false;
				this.setText(entry, line.text, now);
			}
		}
		for (const [key, entry] of this.entries) {
			if (entry.confirmed) continue;
			if (!onScreen.has(key) || now - entry.lastChangeAt >= this.settleMs) this.confirm(entry);
		}
		return true;
	}

	/** Confirm everything still open (leaving the call). */
	flush(): void {
		for (const entry of this.entries.values()) if (!entry.confirmed) this.confirm(entry);
	}

	private newSegment(line: CaptionLine, activeSpeakers: string[], now: number): BotSegment {
		const speaker = line.speaker ?? activeSpeakers[0] ?? PROVISIONAL_SPEAKER;
		const start = (now - this.callStartedAt) / 1000;
		return {
			segment_id: `${this.prefix}-${line.key}`,
			speaker,
			speaker_source: line.speaker ? "caption" : activeSpeakers[0] ? "active_speaker" : "none",
			text: "",
			start,
			end: start,
			language: this.language,
			completed: false,
			source: "captions",
			absolute_start_time: new Date(now).toISOString(),
			absolute_end_time: new Date(now).toISOString(),
		};
	}

	/**
	 * A caption's language: the forced one, else the one its text shows, else the one the meeting's
	 * captions last showed (a short "Yes." says nothing by itself), else null.
	 */
	private languageOf(text: string): string | null {
		if (this.language) return this.language;
		const read = captionLanguage(text);
		if (read) this.heard = read;
		return read ?? this.heard;
	}

	/**
	 * Spreads the entry's text, spelled as the vocabulary lists, over its pieces and sends each
	 * piece whose text changed, as a draft. The entry keeps the page's text, to tell a change by.
	 */
	private setText(entry: TrackedCaption, text: string, now: number): void {
		entry.text = text;
		const first = entry.pieces[0];
		if (!first) return;
		const language = this.languageOf(text);
		const offset = (now - this.callStartedAt) / 1000;
		const at = new Date(now).toISOString();
		splitText(this.spell(text), this.maxText).forEach((part, i) => {
			let piece = entry.pieces[i];
			if (!piece) {
				piece = { ...first, segment_id: `${first.segment_id}-${i + 1}`, text: "", start: offset, absolute_start_time: at };
				entry.pieces.push(piece);
			}
			if (piece.text === part) return;
			piece.text = part;
			piece.language = language;
			piece.end = offset;
			piece.absolute_end_time = at;
			piece.completed = false;
			this.emit({ ...piece });
		});
	}

	private confirm(entry: TrackedCaption): void {
		entry.confirmed = true;
		for (const piece of entry.pieces) {
			if (piece.text === "") continue;
			piece.completed = true;
			this.emit({ ...piece });
		}
	}
}

/** Participant join/leave from successive lists of names (the bot excluded). */
export class ParticipantTracker {
	private present = new Set<string>();
	/** Anyone besides the bot was ever seen in the call. */
	everJoined = false;

	update(names: string[], emit: (event: "join" | "leave", name: string) => void): void {
		const next = new Set(names);
		for (const name of next) if (!this.present.has(name)) emit("join", name);
		for (const name of this.present) if (!next.has(name)) emit("leave", name);
		if (next.size > 0) this.everJoined = true;
		this.present = next;
	}

	get count(): number {
		return this.present.size;
	}
}

const sameText = (text: string) => text.replace(/\s+/g, " ").trim();

/**
 * New chat lines by counting (sender, text) pairs: robust to panels that re-render their
 * whole list (Teams mounts messages only while the panel is open). A line is the bot's own
 * only when it matches a text the bot sent, under a name the platform shows for the bot: a
 * participant who calls themselves "You" or the bot's name is still a participant.
 */
export class ChatTracker {
	private readonly seen = new Map<string, number>();
	private readonly selfLabels: Set<string>;
	/** Texts the bot sent that the chat panel has not shown yet, with how many times. */
	private readonly sent = new Map<string, number>();

	constructor(botName: string) {
		this.selfLabels = new Set([botName, "You", "Me"]);
	}

	/** Records a message the bot itself posted, so its line in the panel is marked as the bot's. */
	noteSent(text: string): void {
		const key = sameText(text);
		this.sent.set(key, (this.sent.get(key) ?? 0) + 1);
	}

	private isOwn(line: ChatLine): boolean {
		if (!this.selfLabels.has(line.sender)) return false;
		const key = sameText(line.text);
		const pending = this.sent.get(key) ?? 0;
		if (pending === 0) return false;
		if (pending === 1) this.sent.delete(key);
		else this.sent.set(key, pending - 1);
		return true;
	}

	update(lines: ChatLine[], now: number): ChatMessage[] {
		const counts = new Map<string, number>();
		const fresh: ChatMessage[] = [];
		for (const line of lines) {
			const key = `${line.sender}\u0000${line.text}`;
			const n = (counts.get(key) ?? 0) + 1;
			counts.set(key, n);
			if (n > (this.seen.get(key) ?? 0)) {
				this.seen.set(key, n);
				fresh.push({
					sender: shorten(line.sender, CHAT_SENDER_MAX),
					text: shorten(line.text, CHAT_TEXT_MAX),
					timestamp: now,
					is_from_bot: this.isOwn(line),
				});
			}
		}
		return fresh;
	}
}
