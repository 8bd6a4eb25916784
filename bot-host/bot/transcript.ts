/**
 * Turns what the page shows into channel messages: caption entries become segments (drafts
 * while the text grows, one confirmation with the same segment_id once it settles or leaves
 * the screen), the participant list becomes join/leave events, new chat lines become chat.
 */
import type { BotSegment, ChatMessage } from "../../src/bot-channel/protocol.ts";
import type { CaptionLine, ChatLine } from "../drivers/types.ts";

interface TrackedCaption {
	segment: BotSegment;
	lastChangeAt: number;
	confirmed: boolean;
}

export class CaptionTracker {
	private readonly entries = new Map<string, TrackedCaption>();
	private readonly prefix: string;
	private readonly callStartedAt: number;
	private readonly settleMs: number;
	private readonly emit: (segment: BotSegment) => void;
	language: string | null;

	constructor(o: { prefix: string; callStartedAt: number; settleMs: number; language: string | null; emit: (s: BotSegment) => void }) {
		this.prefix = o.prefix;
		this.callStartedAt = o.callStartedAt;
		this.settleMs = o.settleMs;
		this.language = o.language;
		this.emit = o.emit;
	}

	update(lines: CaptionLine[], activeSpeakers: string[], now: number): void {
		const onScreen = new Set<string>();
		for (const line of lines) {
			onScreen.add(line.key);
			if (line.text === "") continue;
			let entry = this.entries.get(line.key);
			if (!entry) {
				entry = { segment: this.newSegment(line, activeSpeakers, now), lastChangeAt: now, confirmed: false };
				this.entries.set(line.key, entry);
				this.emit({ ...entry.segment });
				continue;
			}
			const seg = entry.segment;
			// A caption without a name keeps looking for the active speaker until it is confirmed.
			if (seg.speaker_source === "none" && activeSpeakers[0] && !entry.confirmed) {
				seg.speaker = activeSpeakers[0];
				seg.speaker_source = "active_speaker";
			}
			if (line.text !== seg.text) {
				seg.text = line.text;
				this.touch(entry, now);
				seg.completed = false;
				entry.confirmed = false;
				this.emit({ ...seg });
			}
		}
		for (const [key, entry] of this.entries) {
			if (entry.confirmed) continue;
			if (!onScreen.has(key) || now - entry.lastChangeAt >= this.settleMs) this.confirm(entry);
		}
	}

	/** Confirm everything still open (leaving the call). */
	flush(): void {
		for (const entry of this.entries.values()) if (!entry.confirmed) this.confirm(entry);
	}

	private newSegment(line: CaptionLine, activeSpeakers: string[], now: number): BotSegment {
		const speaker = line.speaker ?? activeSpeakers[0] ?? "";
		const start = (now - this.callStartedAt) / 1000;
		return {
			segment_id: `${this.prefix}-${line.key}`,
			speaker,
			speaker_source: line.speaker ? "caption" : activeSpeakers[0] ? "active_speaker" : "none",
			text: line.text,
			start,
			end: start,
			language: this.language,
			completed: false,
			absolute_start_time: new Date(now).toISOString(),
			absolute_end_time: new Date(now).toISOString(),
		};
	}

	private touch(entry: TrackedCaption, now: number): void {
		entry.lastChangeAt = now;
		entry.segment.end = (now - this.callStartedAt) / 1000;
		entry.segment.absolute_end_time = new Date(now).toISOString();
	}

	private confirm(entry: TrackedCaption): void {
		entry.confirmed = true;
		entry.segment.completed = true;
		this.emit({ ...entry.segment });
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

/**
 * New chat lines by counting (sender, text) pairs: robust to panels that re-render their
 * whole list (Teams mounts messages only while the panel is open).
 */
export class ChatTracker {
	private readonly seen = new Map<string, number>();
	private readonly selfLabels: Set<string>;

	constructor(botName: string) {
		this.selfLabels = new Set([botName, "You", "Me"]);
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
				fresh.push({ sender: line.sender, text: line.text, timestamp: now, is_from_bot: this.selfLabels.has(line.sender) });
			}
		}
		return fresh;
	}
}
