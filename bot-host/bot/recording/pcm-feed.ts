/**
 * The meeting's audio into the encoder on the clock the screen is grabbed on. The page sends
 * 16 kHz PCM in half-second chunks from the moment capture starts; ffmpeg times that input by
 * its samples from the feed's start, and the screen by the wall clock taken back to that start
 * (ffmpeg-args.ts). So silence fills in before the first chunk and wherever chunks stop coming (a
 * page hiccup), and audio and video stay in step. A pipe ffmpeg does not drain (it fell behind)
 * drops audio rather than grow the host's memory.
 */
import type { Writable } from "node:stream";
import { SAMPLE_RATE } from "../transcription/engine.ts";

const BYTES_PER_SECOND = SAMPLE_RATE * 2;
/** How far the page's chunks may run behind the clock before silence stands in: a chunk, the page's buffer and the DevTools hop. */
const CAPTURE_LAG_MS = 1_500;
const FILL_EVERY_MS = 250;
/** 20 ms: one Opus frame's worth, so ffmpeg's audio input has something to open with. */
const START_SILENCE_BYTES = (BYTES_PER_SECOND / 1000) * 20;
/** Audio waiting for ffmpeg past this is dropped (a few seconds of it). */
const MAX_PENDING_BYTES = 4 * BYTES_PER_SECOND;

export class PcmFeed {
	private startedAt: number | null = null;
	private written = 0;
	private timer: NodeJS.Timeout | null = null;
	private droppedBytes = 0;

	private readonly sink: Writable;
	private readonly now: () => number;

	constructor(sink: Writable, now: () => number = Date.now) {
		this.sink = sink;
		this.now = now;
	}

	/**
	 * From `at` (epoch ms, the files' time 0) the clock runs: silence for what capture has not
	 * delivered yet. A first bit of it at once, so ffmpeg's audio input has something to open with.
	 */
	start(at: number = this.now()): void {
		this.startedAt = at;
		this.write(Buffer.alloc(START_SILENCE_BYTES));
		this.timer = setInterval(() => this.fill(CAPTURE_LAG_MS), FILL_EVERY_MS);
		this.timer.unref();
	}

	push(pcm: Buffer): void {
		if (this.startedAt === null) return;
		this.write(pcm.length % 2 === 0 ? pcm : pcm.subarray(0, pcm.length - 1));
	}

	/** Bytes of audio lost because ffmpeg did not keep up. */
	get dropped(): number {
		return this.droppedBytes;
	}

	/** Silence up to now (the last chunks may never come), then the end of the input. */
	end(): void {
		if (this.timer) clearInterval(this.timer);
		this.timer = null;
		if (this.startedAt !== null) this.fill(0);
		this.startedAt = null;
		this.sink.end();
	}

	private fill(lagMs: number): void {
		if (this.startedAt === null) return;
		const due = Math.floor(((this.now() - this.startedAt - lagMs) / 1000) * SAMPLE_RATE) * 2;
		if (due > this.written) this.write(Buffer.alloc(due - this.written));
	}

	private write(pcm: Buffer): void {
		if (this.sink.destroyed || this.sink.writableEnded) return;
		if (this.sink.writableLength > MAX_PENDING_BYTES) {
			this.droppedBytes += pcm.length;
			return;
		}
		this.sink.write(pcm);
		this.written += pcm.length;
	}
}
