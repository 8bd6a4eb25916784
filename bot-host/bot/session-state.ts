/**
 * What one bot knows of its meeting (session.ts): its request, the stage the room was told, the
 * ending asked for, the browser and page, and the call's parts once admitted; and how it tells
 * the room its status. The watch loop (meeting-watch.ts) and the session's life build on it.
 */
import { tmpdir } from "node:os";
import type { Page } from "puppeteer-core";
import type { FailureDiagnostics, HelpReport } from "../../src/bot-channel/help-report.ts";
import type { Act, JoinStep, SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { driverFor } from "../drivers/index.ts";
import type { MeetingDriver } from "../drivers/types.ts";
import type { InCallActions } from "./actions.ts";
import { MeetingAudio, recordingCap } from "./audio.ts";
import type { BotBrowser } from "./browser.ts";
import { CAPTION_WATCH_DEFAULTS, type CaptionWatch, HeardSpeech } from "./caption-watch.ts";
import { BotChannel } from "./channel.ts";
import { Evidence } from "./evidence.ts";
import { DEFAULT_HELP_GRACE_MS, HelpWatch } from "./help.ts";
import { type Ending, failedWithout, leaving, type Stage } from "./outcomes.ts";
import type { ProfileWatch } from "./profile-watch.ts";
import { type RecordingMode, recordingMode } from "./recording/plan.ts";
import { StreamedRecording } from "./recording/streamed-recording.ts";
import { encoderMissing } from "./recording/tools.ts";
import type { SessionOptions } from "./session-options.ts";
import type { CaptionTracker, ChatTracker } from "./transcript.ts";

export abstract class SessionState {
	readonly request: SpawnRequest;
	readonly finished: Promise<void>;
	protected readonly options: SessionOptions;
	protected readonly driver: MeetingDriver;
	protected readonly channel: BotChannel;
	protected readonly now: () => number;
	protected readonly log: (line: string) => void;
	protected stage: Stage = "joining";
	/** The step of the join the bot is on, sent with a help request and a failure (docs/bot-fleet.md#join-health). */
	protected joinStep: JoinStep = "start_browser";
	protected requestedEnding: Ending | null = null;
	protected crashed: string | null = null;
	protected bot: BotBrowser | null = null;
	protected profileWatch: ProfileWatch | null = null;
	protected page: Page | null = null;
	protected readonly commands: { id: string; act: Act }[] = [];
	/** Capture, the capped recording and transcription of the call; its file is made once audio arrives. */
	protected readonly audio: MeetingAudio;
	/** What the bot records: nothing, the WAV (`audio`), or WebM files streamed in parts (`streamed`). */
	protected readonly recordingMode: RecordingMode;
	protected readonly streamed: StreamedRecording | null;
	protected actions: InCallActions | null = null;
	protected captions: CaptionTracker | null = null;
	protected chat: ChatTracker | null = null;
	protected callStartedAt: number | null = null;
	/** The bot's last steps, page text and screenshots, for help requests and failures. */
	protected readonly evidence: Evidence;
	protected readonly help: HelpWatch;
	/** How long the page heard people talk (its level meter), whatever the transcript comes from. */
	protected readonly heard: HeardSpeech;
	/** While the transcript comes from captions: whether people talk with no caption read. */
	protected captionWatch: CaptionWatch | null = null;
	protected resolveFinished: () => void = () => {};

	constructor(options: SessionOptions) {
		this.options = options;
		this.request = options.request;
		this.driver = driverFor(options.request.platform);
		this.now = options.now ?? Date.now;
		this.log = options.log ?? (() => {});
		this.evidence = new Evidence({ request: options.request, now: this.now, log: this.log, onStep: options.onStep });
		this.help = new HelpWatch(options.helpGraceMs ?? DEFAULT_HELP_GRACE_MS);
		this.heard = new HeardSpeech(options.captionWatch?.windowMs ?? CAPTION_WATCH_DEFAULTS.windowMs);
		this.channel = new BotChannel({
			url: options.request.channel.url,
			token: options.request.channel.token,
			log: this.log,
			onCommand: (id, act) => this.commands.push({ id, act }),
			// Without a channel nothing the bot hears reaches anyone: leave rather than linger.
			onRejected: () => {
				this.requestedEnding ??= failedWithout("the room refused the channel token", true);
			},
			// The meeting was ended without the bot (watchdog, stop deadline): it must not stay in the call.
			onMeetingEnded: () => {
				this.requestedEnding ??= leaving("stopped", "the room ended the meeting");
			},
			// Another host's bot holds the meeting now; two bots in one call would transcribe it twice.
			onSuperseded: () => {
				this.requestedEnding ??= leaving("stopped", "a newer bot took over this meeting");
			},
		});
		const request = options.request;
		this.recordingMode = recordingMode(request, encoderMissing());
		if (this.recordingMode.kind === "wav" && this.recordingMode.why)
			this.log(`bot ${request.meeting_id}: recording the meeting's audio as WAV: ${this.recordingMode.why}`);
		const maxRecordingBytes = recordingCap(options.recordingMaxBytes, request);
		// The bot stays and transcribes on; the meeting's record says why the recording ends early.
		const recordingStopped = (bytes: number) => {
			this.log(`bot ${request.meeting_id}: recording stopped at its size limit (${bytes} bytes); transcription goes on`);
			const timestamp = new Date(this.now()).toISOString();
			this.channel.send({ type: "recording", state: "stopped", reason: "size_limit", bytes, timestamp });
		};
		this.audio = new MeetingAudio({
			recording: this.recordingMode.kind === "wav",
			callOffsetMs: () => (this.callStartedAt === null ? 0 : this.now() - this.callStartedAt),
			maxRecordingBytes,
			onRecordingStopped: recordingStopped,
		});
		const mode = this.recordingMode;
		this.streamed =
			mode.kind === "parts"
				? new StreamedRecording({
						plan: mode.plan,
						url: mode.url,
						token: request.channel.token,
						dir: options.browser.owner?.dir ?? tmpdir(),
						maxBytes: maxRecordingBytes,
						onStopped: recordingStopped,
						log: (line) => this.log(`bot ${request.meeting_id}: ${line}`),
					})
				: null;
		this.audio.recorder = this.streamed;
		this.finished = new Promise((resolve) => {
			this.resolveFinished = resolve;
		});
	}

	/** The bot's Chromium process id (memory accounting, and crash tests). */
	get browserPid(): number | undefined {
		return this.bot?.browser.process()?.pid;
	}

	/** Processes of the bot outside its Chromium's tree: its recording's encoder while it runs (CPU accounting). */
	get companionPids(): number[] {
		const encoder = this.streamed?.encoderPid;
		return encoder ? [encoder] : [];
	}

	/** The file the recording is written to while the bot is in the call. */
	get recordingPath(): string | null {
		return this.audio.recordingPath;
	}

	/** Disk the recording may still take (the host counts it before taking more work). */
	get recordingRoomLeft(): number {
		return this.audio.recordingRoomLeft + (this.streamed?.roomLeft ?? 0);
	}

	/** The streamed recording's files while the bot is in the call (tests). */
	get recordingFiles(): string[] {
		return this.streamed?.filePaths ?? [];
	}

	/** Disk the Chromium profile may still take (the host counts it before taking more work); its whole budget before it starts. */
	get profileRoomLeft(): number {
		return this.profileWatch?.roomLeft ?? this.options.profileDiskBytes ?? 0;
	}

	get currentStage(): Stage {
		return this.stage;
	}

	protected status(
		status: Stage | "needs_help" | "completed" | "failed",
		extra: Partial<Omit<Ending, "leave">> & {
			failure_stage?: Stage;
			join_step?: JoinStep;
			help?: HelpReport;
			diagnostics?: FailureDiagnostics;
		} = {},
	) {
		this.channel.send({ type: "status", status, ...extra, timestamp: new Date(this.now()).toISOString() });
	}
}
