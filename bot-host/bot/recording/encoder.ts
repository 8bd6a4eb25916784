/**
 * One ffmpeg per recording bot (ffmpeg-args.ts), from the moment the bot is in the call until it
 * leaves or its recording reaches its cap. It sees only the bot's own display (DISPLAY and
 * XAUTHORITY, nothing else of the host's environment), dies with the host (setpriv --pdeathsig),
 * and is stopped with SIGTERM, on which ffmpeg finishes its files (Duration, SeekHead, Cues).
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { RecordingPlan } from "../../../src/bot-channel/protocol.ts";
import { parentDeathHelper } from "../browser-owner.ts";
import type { VirtualDisplay } from "../display.ts";
import { encoderArgs } from "./ffmpeg-args.ts";
import { PcmFeed } from "./pcm-feed.ts";
import { encoderTool } from "./tools.ts";
import type { ScreenRect } from "./viewport.ts";

const AUDIO_FD = 3;
const PROGRESS_FD = 4;
/** How long ffmpeg may take to finish its files after SIGTERM before it is killed. */
const FINISH_TIMEOUT_MS = 15_000;
/** How long a stop waits for ffmpeg to encode what it already grabbed. */
const CATCH_UP_MS = 2_000;
/** What may still wait in ffmpeg's queues when it is asked to stop (its progress lags the frames it grabbed). */
const ENCODER_LAG_S = 0.5;

export interface EncoderStart {
	plan: RecordingPlan;
	/** The bot's screen and the page's region on it; null for audio only. */
	screen: { display: Pick<VirtualDisplay, "name" | "env">; rect: ScreenRect } | null;
	files: { audio: string; video: string | null };
	log: (line: string) => void;
}

export class RecordingEncoder {
	private readonly child: ChildProcess;
	private readonly feed: PcmFeed;
	private readonly exited: Promise<number | null>;
	private outMicros = 0;
	private stopping: Promise<void> | null = null;
	private readonly said: string[] = [];
	private readonly now: () => number = Date.now;
	/** The files' time 0 (epoch ms): the audio's first sample, and the clock the screen's frames are placed on. */
	readonly startedAt = this.now();

	constructor(o: EncoderStart) {
		const setpriv = parentDeathHelper();
		const ffmpeg = encoderTool("ffmpeg");
		const args = encoderArgs({
			display: o.screen?.display.name ?? "",
			rect: o.screen?.rect ?? { x: 0, y: 0, width: 0, height: 0 },
			plan: { ...o.plan, video: o.screen !== null },
			audioFd: AUDIO_FD,
			progressFd: PROGRESS_FD,
			files: o.files,
			startedAt: this.startedAt,
		});
		this.child = spawn(setpriv ?? ffmpeg, setpriv ? ["--pdeathsig", "SIGKILL", "--", ffmpeg, ...args] : args, {
			stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
			env: o.screen ? { ...o.screen.display.env } : {},
		});
		this.exited = new Promise((resolve) => {
			this.child.once("exit", (code) => resolve(code));
			this.child.once("error", (err) => {
				o.log(`recording encoder: ${err.message}`);
				resolve(null);
			});
		});
		this.child.stderr?.on("data", (chunk: Buffer) => {
			this.said.push(chunk.toString());
			if (this.said.length > 20) this.said.shift();
		});
		let progress = "";
		(this.child.stdio[PROGRESS_FD] as Readable).on("data", (chunk: Buffer) => {
			progress += chunk.toString();
			const lines = progress.split("\n");
			progress = lines.pop() ?? "";
			for (const line of lines) {
				const micros = /^out_time_us=(\d+)$/.exec(line.trim());
				if (micros) this.outMicros = Math.max(this.outMicros, Number(micros[1]));
			}
		});
		const audio = this.child.stdio[AUDIO_FD] as Writable;
		// ffmpeg gone (stopped, failed): what is still written to its pipe goes nowhere.
		audio.on("error", () => {});
		this.feed = new PcmFeed(audio);
		this.feed.start(this.startedAt);
	}

	/** The meeting's 16 kHz mono PCM, as captured. */
	push(pcm: Buffer): void {
		this.feed.push(pcm);
	}

	/** The media seconds encoded so far (ffmpeg's progress). */
	get mediaSeconds(): number {
		return this.outMicros / 1e6;
	}

	/** ffmpeg's process id (the host counts its CPU with its bot's). */
	get pid(): number | undefined {
		return this.child.pid;
	}

	get running(): boolean {
		return this.child.exitCode === null && this.child.signalCode === null;
	}

	/** ffmpeg's last words (errors only), for a log line. */
	get lastWords(): string {
		return this.said.join("").trim().split("\n").slice(-3).join(" / ");
	}

	/**
	 * Ask ffmpeg to stop grabbing and finish its files; resolves once it was asked, when it takes no
	 * more frames (the bot may leave the call then, while ffmpeg writes its files). It drops what
	 * waits in its input queues on SIGTERM, so it gets a moment first to encode what it grabbed up to now.
	 */
	stopGrabbing(): Promise<void> {
		this.stopping ??= (async () => {
			const asked = this.now();
			const grabbed = (asked - this.startedAt) / 1000 - ENCODER_LAG_S;
			while (this.running && this.mediaSeconds < grabbed && this.now() - asked < CATCH_UP_MS) await sleep(100);
			if (this.running) this.child.kill("SIGTERM");
			const killer = setTimeout(() => this.child.kill("SIGKILL"), FINISH_TIMEOUT_MS);
			void this.exited.then(() => clearTimeout(killer));
		})();
		return this.stopping;
	}

	/** Stops grabbing, then resolves when ffmpeg has exited (killed past the timeout): whether it finished cleanly. */
	async stop(): Promise<boolean> {
		await this.stopGrabbing();
		const code = await this.exited;
		this.feed.end();
		return code === 0 || code === 255;
	}
}
