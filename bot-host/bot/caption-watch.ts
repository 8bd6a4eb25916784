/**
 * Silence that is not silence. A bot whose transcript comes from the platform's captions reads
 * nothing when the captions cannot be read: the page changed where it draws them, or captions
 * are off or unavailable in this meeting. Without this rule it would stay `active` with an
 * empty transcript. The meeting's audio level (measured in the page whether or not the bot
 * records: page-media.js) says whether people are talking. When they have talked long enough
 * and no caption was read for a while, the bot asks for help (`captions_unreadable`) once, and
 * stays in the call with everything else going (recording, chat, participants, its limits).
 * When a caption is read again it reports `active`.
 */
import type { CaptionLine } from "../drivers/types.ts";

export interface CaptionWatchLimits {
	/** How much speech must have been heard since the last caption read (within `windowMs`). */
	heardMs: number;
	/** How long no caption line may be read while people talk. */
	quietMs: number;
	/** Speech counts toward `heardMs` only this far back, so a stray cough an hour ago is forgotten. */
	windowMs: number;
}

/**
 * Ten seconds of speech with no caption for thirty: long enough that the platform's caption delay
 * (about a second) and a pause between speakers never count, short enough that a user hears
 * of it while the meeting is still on.
 */
export const CAPTION_WATCH_DEFAULTS: CaptionWatchLimits = { heardMs: 10_000, quietMs: 30_000, windowMs: 60_000 };

/**
 * What the page heard of the meeting: voiced milliseconds reported by the page's level meter
 * (about once a second while anyone is heard), kept for as long as any rule looks back.
 */
export class HeardSpeech {
	private readonly reports: { at: number; ms: number }[] = [];
	private readonly keepMs: number;

	constructor(keepMs: number) {
		this.keepMs = keepMs;
	}

	/** The page heard `ms` of speech in the reading that ended at `now`. */
	add(ms: number, now: number): void {
		if (!(ms > 0)) return;
		this.reports.push({ at: now, ms });
		while (this.reports.length > 0 && (this.reports[0]?.at ?? now) < now - this.keepMs) this.reports.shift();
	}

	/** Speech heard in reports after `since`, up to `now`. */
	since(since: number): number {
		let total = 0;
		for (const r of this.reports) if (r.at > since) total += r.ms;
		return total;
	}
}

export type CaptionMove = "ask" | "recovered" | null;

/** One episode at a time: asked once when people talk without captions, recovered at the next caption read. */
export class CaptionWatch {
	readonly limits: CaptionWatchLimits;
	private readonly heard: HeardSpeech;
	/** When a caption line was last read (or since when the captions were expected). */
	private lastReadAt: number;
	private lastSeen = "";
	private asked = false;
	private readSinceAsking = false;

	constructor(heard: HeardSpeech, now: number, limits: Partial<CaptionWatchLimits> = {}) {
		this.heard = heard;
		this.limits = { ...CAPTION_WATCH_DEFAULTS, ...limits };
		this.lastReadAt = now;
	}

	get asking(): boolean {
		return this.asked;
	}

	/** The caption lines on screen (each reading and each pushed change): new text is a caption read. */
	saw(lines: readonly CaptionLine[], now: number): void {
		const shown = lines
			.filter((l) => l.text !== "")
			.map((l) => `${l.key}\u0000${l.text}`)
			.join("\u0001");
		if (shown === "" || shown === this.lastSeen) return;
		this.lastSeen = shown;
		this.lastReadAt = now;
		if (this.asked) this.readSinceAsking = true;
	}

	/** Speech heard since the last caption read, within the window. */
	heardWithoutCaptions(now: number): number {
		return this.heard.since(Math.max(this.lastReadAt, now - this.limits.windowMs));
	}

	/** One look while the bot is in the call: `ask` once the rule holds, `recovered` at the first caption read after. */
	observe(now: number): CaptionMove {
		if (this.asked) {
			if (!this.readSinceAsking) return null;
			this.asked = false;
			this.readSinceAsking = false;
			return "recovered";
		}
		if (now - this.lastReadAt < this.limits.quietMs) return null;
		if (this.heardWithoutCaptions(now) < this.limits.heardMs) return null;
		this.asked = true;
		return "ask";
	}

	/** After another help episode (the page itself was not recognised): nothing asked, the quiet counted from now. */
	restart(now: number): void {
		this.asked = false;
		this.readSinceAsking = false;
		this.lastReadAt = now;
	}

	/** The help request's reason, in words a user can act on. */
	reason(now: number, recording: boolean): string {
		const heard = Math.round(this.heardWithoutCaptions(now) / 1000);
		const quiet = Math.round((now - this.lastReadAt) / 1000);
		return (
			`people have been heard talking for ${heard} s, but the bot has read no caption for ${quiet} s: ` +
			"the platform's captions cannot be read (the page may have changed where it shows them, or captions are off or " +
			"not available in this meeting). Turn captions on in the meeting if they are off; " +
			`the bot stays in the call${recording ? " and keeps recording" : ""}, and carries on as soon as it reads a caption`
		);
	}
}
