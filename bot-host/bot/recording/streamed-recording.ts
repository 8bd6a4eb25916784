/**
 * A bot's recording streamed in parts (docs/bot-channel.md#recording-parts): from the call's
 * start ffmpeg (encoder.ts) writes the audio file, and with the plan's video the video file, in
 * a private directory of the host's; every RECORDING_PART_SECONDS what it wrote is shipped
 * (file-parts.ts). When the bot leaves, or the files reach the recording's cap, ffmpeg finishes
 * them; the changed parts and the tail follow, then the completion.
 */
import { mkdtemp, open, rm } from "node:fs/promises";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { RECORDING_PART_SECONDS, type RecordingCompletion, type RecordingPlan } from "../../../src/bot-channel/protocol.ts";
import { errorText } from "../../error-text.ts";
import type { VirtualDisplay } from "../display.ts";
import { RecordingEncoder } from "./encoder.ts";
import { FileParts } from "./file-parts.ts";
import { PART_RETRIES, type PartRequest, sendWithRetries } from "./part-http.ts";
import { completionMetadata, probeMedia } from "./probe.ts";
import { viewportOnScreen } from "./viewport.ts";

export interface StreamedRecordingOptions {
	plan: RecordingPlan;
	/** `recording_parts_url` */
	url: string;
	token: string;
	/** Where its private directory goes (the host's own directory). */
	dir: string;
	/** The most the files may take together (audio.ts recordingCap). */
	maxBytes: number;
	/** Told once, with the files' size, when they reached the cap and were finished. */
	onStopped: (bytes: number) => void;
	log: (line: string) => void;
	partSeconds?: number;
}

/** How often the files' size is held against the cap (a stat of each; far more often than parts are shipped). */
const CAP_CHECK_MS = 500;
/**
 * How long a leaving bot may spend on its recording's last requests (re-sent parts, the tail, the
 * completion) before it gives the rest up: a Worker that does not answer must not hold its final status.
 */
const FINISH_BUDGET_MS = 60_000;

/**
 * What finishing the files adds (the Cues, about a hundred bytes a minute; the header is
 * rewritten in place), with room to spare.
 */
const finishingBytes = (bytes: number) => 64 * 1024 + Math.ceil(bytes / 1000);

export class StreamedRecording {
	private readonly o: StreamedRecordingOptions;
	private dir: string | null = null;
	private encoder: RecordingEncoder | null = null;
	private files: FileParts[] = [];
	private timer: NodeJS.Timeout | null = null;
	private capTimer: NodeJS.Timeout | null = null;
	private shipping: Promise<void> = Promise.resolve();
	private encoderStopped: Promise<void> | null = null;
	private bytesOnDisk = 0;
	/** The most the files grew between two checks: ffmpeg writes a cluster (up to 2 s) at once. */
	private largestGrowth = 0;
	private finished = false;
	/** Past this no part request starts (set when the bot leaves). */
	private giveUpAt = Number.POSITIVE_INFINITY;

	constructor(o: StreamedRecordingOptions) {
		this.o = o;
	}

	/** Disk the recording may still take (the host counts it before taking more work). */
	get roomLeft(): number {
		if (this.finished || this.encoderStopped) return 0;
		return Math.max(0, this.o.maxBytes - this.bytesOnDisk);
	}

	/** The encoder's process while it runs. */
	get encoderPid(): number | null {
		return this.encoder?.running ? (this.encoder.pid ?? null) : null;
	}

	/** Where the files are written while the bot is in the call (tests). */
	get filePaths(): string[] {
		return this.files.map((f) => f.path);
	}

	/** The call started: the encoder runs from now. `display`: the bot's screen (null: audio only, as there is nothing to grab). */
	async start(page: Page, display: VirtualDisplay | null): Promise<void> {
		if (this.encoder || this.finished) return;
		const video = this.o.plan.video && display !== null;
		if (this.o.plan.video && !display) this.o.log("recording: no screen to grab (a headless browser): audio only");
		// A directory only this user can enter, files created new and readable by it alone.
		this.dir = await mkdtemp(path.join(this.o.dir, "bot-recording-"));
		const audio = path.join(this.dir, "audio.webm");
		const videoFile = video ? path.join(this.dir, "video.webm") : null;
		for (const file of [audio, videoFile]) if (file) await (await open(file, "wx", 0o600)).close();
		const screen = video && display ? { display, rect: await viewportOnScreen(page, display) } : null;
		this.encoder = new RecordingEncoder({ plan: this.o.plan, screen, files: { audio, video: videoFile }, log: this.o.log });
		this.files = [...(videoFile ? [this.fileParts("video", videoFile)] : []), this.fileParts("audio", audio)];
		this.timer = setInterval(() => this.tick(), (this.o.partSeconds ?? RECORDING_PART_SECONDS) * 1000);
		this.timer.unref();
		this.capTimer = setInterval(() => {
			this.checkCap().catch((err: unknown) => this.o.log(`recording cap: ${errorText(err)}`));
		}, CAP_CHECK_MS);
		this.capTimer.unref();
	}

	/** The meeting's 16 kHz mono PCM, as captured. */
	push(pcm: Buffer): void {
		this.encoder?.push(pcm);
	}

	/**
	 * Stop grabbing, before the bot leaves the call, so the video ends in the meeting and no later:
	 * ffmpeg finishes its files while the bot leaves (`finish` waits for them).
	 */
	stopGrabbing(): Promise<void> {
		return this.encoder?.stopGrabbing() ?? Promise.resolve();
	}

	/** Stop grabbing; resolves once ffmpeg has finished its files. */
	stopEncoder(): Promise<void> {
		this.encoderStopped ??= (async () => {
			const encoder = this.encoder;
			if (!encoder) return;
			const clean = await encoder.stop();
			if (!clean) this.o.log(`recording encoder ended badly: ${encoder.lastWords || "no words"}`);
		})();
		return this.encoderStopped;
	}

	/** The bot is leaving: the files finished, their changed parts and the tail shipped, the completion posted; the files removed. */
	async finish(): Promise<void> {
		if (this.finished) return;
		this.finished = true;
		this.giveUpAt = Date.now() + FINISH_BUDGET_MS;
		if (this.timer) clearInterval(this.timer);
		if (this.capTimer) clearInterval(this.capTimer);
		try {
			await this.shipping;
			if (!this.encoder) return;
			await this.stopEncoder();
			const completion: RecordingCompletion["files"] = [];
			for (const file of this.files) {
				const probed = await probeMedia(file.path).catch(() => null);
				const duration = probed?.duration ?? this.encoder.mediaSeconds;
				await file.shipFinal(duration);
				if (file.count === 0) continue;
				completion.push({
					type: file.type,
					format: "webm",
					parts: file.count,
					duration_seconds: Math.round(duration * 1000) / 1000,
					// started_at: when the file's time 0 was, so it lines up with the transcript's absolute times.
					metadata: { ...(probed ? completionMetadata(probed) : {}), started_at: new Date(this.encoder.startedAt).toISOString() },
				});
			}
			if (completion.length > 0) await this.complete(completion);
		} finally {
			if (this.dir) await rm(this.dir, { recursive: true, force: true });
		}
	}

	private fileParts(type: "audio" | "video", file: string): FileParts {
		return new FileParts({
			type,
			path: file,
			url: this.o.url,
			token: this.o.token,
			log: this.o.log,
			send: (request) => this.send(request),
		});
	}

	private send(request: PartRequest): Promise<{ status: number } | { error: string }> {
		if (Date.now() >= this.giveUpAt) return Promise.resolve({ error: "given up: the bot's time to finish its recording ran out" });
		return sendWithRetries(request, { ...PART_RETRIES, until: this.giveUpAt });
	}

	/** One part per file at most at a time: a slow PUT delays the next tick's, never overlaps it. */
	private tick(): void {
		this.shipping = this.shipping.then(() => this.shipNew()).catch((err: unknown) => this.o.log(`recording parts: ${errorText(err)}`));
	}

	private async shipNew(): Promise<void> {
		// After the cap the files are final: what they hold is shipped when the bot leaves.
		if (this.finished || !this.encoder || this.encoderStopped) return;
		const seconds = this.encoder.mediaSeconds;
		for (const file of this.files) await file.shipNew(seconds);
	}

	private async measure(): Promise<number> {
		const sizes = await Promise.all(this.files.map((f) => f.size()));
		this.bytesOnDisk = sizes.reduce((a, b) => a + b, 0);
		return this.bytesOnDisk;
	}

	/**
	 * Near the cap: ffmpeg finishes the files, and the room hears why the recording ends early.
	 * Near: what may still come (a cluster before the next check, the one ffmpeg holds, finishing)
	 * would reach it.
	 */
	private async checkCap(): Promise<void> {
		if (this.encoderStopped || this.finished) return;
		const before = this.bytesOnDisk;
		const bytes = await this.measure();
		this.largestGrowth = Math.max(this.largestGrowth, bytes - before);
		if (bytes + 2 * this.largestGrowth + finishingBytes(bytes) < this.o.maxBytes) return;
		if (this.capTimer) clearInterval(this.capTimer);
		await this.stopEncoder();
		this.o.onStopped(await this.measure());
	}

	private async complete(files: RecordingCompletion["files"]): Promise<void> {
		const post = () =>
			this.send({
				method: "POST",
				url: `${this.o.url}/complete`,
				headers: { authorization: `Bearer ${this.o.token}`, "content-type": "application/json" },
				body: Buffer.from(JSON.stringify({ files } satisfies RecordingCompletion)),
			});
		let answer = await post();
		// 409: a part is missing there (one given up on): every part once more, then complete again.
		if ("status" in answer && answer.status === 409) {
			for (const file of this.files) await file.reshipAll();
			answer = await post();
		}
		if (!("status" in answer) || answer.status < 200 || answer.status >= 300)
			this.o.log(`recording completion: ${"status" in answer ? `answered ${answer.status}` : answer.error}`);
	}
}
