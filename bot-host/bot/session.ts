/**
 * One bot in one meeting: Chromium, the platform driver, the bot channel, and the rules for
 * when to leave. The page is read every tick; each reading drives the status machine
 * (joining → awaiting_admission → active → completed/failed) and the transcript.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Page } from "puppeteer-core";
import type { FailureDiagnostics, HelpKind, HelpReport } from "../../src/bot-channel/help-report.ts";
import type { Act, JoinStep, SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { driverFor } from "../drivers/index.ts";
import type { CallOptions, MeetingDriver, MeetingSnapshot, PageInput, PageState } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import { InCallActions } from "./actions.ts";
import { deliverRecording, MeetingAudio, recordingCap } from "./audio.ts";
import { type BotBrowser, type BrowserOptions, launchBotBrowser } from "./browser.ts";
import { CAPTION_WATCH_DEFAULTS, CaptionWatch, type CaptionWatchLimits, HeardSpeech } from "./caption-watch.ts";
import { BotChannel } from "./channel.ts";
import { runCommands } from "./commands.ts";
import type { HostEgress } from "./egress.ts";
import { Evidence } from "./evidence.ts";
import { DEFAULT_HELP_GRACE_MS, HELP_REASONS, HelpWatch, helpKindOf } from "./help.ts";
import { HostWait, JoinAttempts } from "./joining.ts";
import { autoLeave, leaveLimits } from "./limits.ts";
import { leaveMeeting, openMeetingPage, preparePage } from "./meeting-page.ts";
import { pageInput } from "./os-input.ts";
import { type Ending, endingFor, failedWithout, leaving, outcomeOf, reportable, type Stage } from "./outcomes.ts";
import { ProfileWatch, profileLimitReason } from "./profile-watch.ts";
import { type CaptionTracker, ChatTracker, ParticipantTracker } from "./transcript.ts";
import { transcriptSource } from "./transcript-source.ts";

const LEAVE_COMMAND = "asked to leave (leave command)";

export interface SessionOptions {
	request: SpawnRequest;
	browser: BrowserOptions;
	/** What the bot may fetch and render for users (URL guard policy and byte caps). */
	egress: HostEgress;
	now?: () => number;
	pollMs?: number;
	captionSettleMs?: number;
	/** How long the pre-join and join may take before it is a join failure (not counted while the bot asks for help). */
	joinTimeoutMs?: number;
	/** How long an unrecognised screen may last before the bot asks for help (BOT_HELP_GRACE_S). */
	helpGraceMs?: number;
	/** How often a page that says the host has not started is re-opened; default the driver's (Zoom: 15 s). */
	hostRecheckMs?: number;
	/** The host's cap on a recording file (BOT_RECORDING_MAX_BYTES); the spawn's `recording_max_bytes` may lower it. */
	recordingMaxBytes?: number;
	/** The disk the bot's Chromium profile may take (BOT_PROFILE_DISK_MB); past it the bot fails (profile-watch.ts). Default: no limit. */
	profileDiskBytes?: number;
	/** How often the profile is measured (profile-watch.ts PROFILE_WATCH_MS). */
	profileWatchMs?: number;
	/** When people heard without captions read is a help request (caption-watch.ts; CAPTION_WATCH_DEFAULTS). */
	captionWatch?: Partial<CaptionWatchLimits>;
	log?: (line: string) => void;
	/** Each step of the bot's way in, as its step log keeps it (the canary prints them). */
	onStep?: (words: string) => void;
}

export class BotSession {
	readonly request: SpawnRequest;
	readonly finished: Promise<void>;
	private readonly options: SessionOptions;
	private readonly driver: MeetingDriver;
	private readonly channel: BotChannel;
	private readonly now: () => number;
	private readonly log: (line: string) => void;
	private stage: Stage = "joining";
	/** The step of the join the bot is on, sent with a help request and a failure (docs/bot-fleet.md#join-health). */
	private joinStep: JoinStep = "start_browser";
	private requestedEnding: Ending | null = null;
	private crashed: string | null = null;
	private bot: BotBrowser | null = null;
	private profileWatch: ProfileWatch | null = null;
	private page: Page | null = null;
	private readonly commands: { id: string; act: Act }[] = [];
	/** Capture, the capped recording and transcription of the call; its file is made once audio arrives. */
	private readonly audio: MeetingAudio;
	private actions: InCallActions | null = null;
	private captions: CaptionTracker | null = null;
	private chat: ChatTracker | null = null;
	private callStartedAt: number | null = null;
	/** The bot's last steps, page text and screenshots, for help requests and failures. */
	private readonly evidence: Evidence;
	private readonly help: HelpWatch;
	/** How long the page heard people talk (its level meter), whatever the transcript comes from. */
	private readonly heard: HeardSpeech;
	/** While the transcript comes from captions: whether people talk with no caption read. */
	private captionWatch: CaptionWatch | null = null;
	private resolveFinished: () => void = () => {};

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
		this.audio = new MeetingAudio({
			recording: request.recording_enabled,
			callOffsetMs: () => (this.callStartedAt === null ? 0 : this.now() - this.callStartedAt),
			maxRecordingBytes: recordingCap(options.recordingMaxBytes, request),
			// The bot stays and transcribes on; the meeting's record says why the recording ends early.
			onRecordingStopped: (bytes) => {
				this.log(`bot ${request.meeting_id}: recording stopped at its size limit (${bytes} bytes); transcription goes on`);
				const timestamp = new Date(this.now()).toISOString();
				this.channel.send({ type: "recording", state: "stopped", reason: "size_limit", bytes, timestamp });
			},
		});
		this.finished = new Promise((resolve) => {
			this.resolveFinished = resolve;
		});
	}

	/** The bot's Chromium process id (memory accounting, and crash tests). */
	get browserPid(): number | undefined {
		return this.bot?.browser.process()?.pid;
	}

	/** The file the recording is written to while the bot is in the call. */
	get recordingPath(): string | null {
		return this.audio.recordingPath;
	}

	/** Disk the recording may still take (the host counts it before taking more work). */
	get recordingRoomLeft(): number {
		return this.audio.recordingRoomLeft;
	}

	/** Disk the Chromium profile may still take (the host counts it before taking more work); its whole budget before it starts. */
	get profileRoomLeft(): number {
		return this.profileWatch?.roomLeft ?? this.options.profileDiskBytes ?? 0;
	}

	/** A JPEG of the meeting page now (the canary's record of each step); null without a page. */
	async screenshot(): Promise<Uint8Array | null> {
		const page = this.page;
		if (!page || page.isClosed() || this.crashed) return null;
		return this.evidence.capture(page).catch(() => null);
	}

	get currentStage(): Stage {
		return this.stage;
	}

	start(): void {
		this.channel.start();
		this.run()
			.catch((err: unknown) => this.log(`bot ${this.request.meeting_id} ended with an error: ${errorText(err)}`))
			.finally(() => this.resolveFinished());
	}

	/** Leave the meeting and report this ending (a stop, the host shutting down). */
	stop(ending: Ending = leaving("stopped", "asked to leave (stop request)")): Promise<void> {
		this.requestedEnding ??= { ...ending, leave: true };
		return this.finished;
	}

	private status(
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

	private async run(): Promise<void> {
		const startedAt = this.now();
		let ending: Ending;
		this.status("joining");
		try {
			ending = await this.attend(startedAt);
		} catch (err) {
			// Past admission a breakage is no join failure: the meeting failed with no table reason.
			if (this.crashed) ending = failedWithout(`browser crashed: ${this.crashed}`);
			else ending = this.stage === "active" ? failedWithout(errorText(err)) : endingFor("join_failure", errorText(err));
		}
		let diagnostics: FailureDiagnostics | undefined;
		if (ending.status === "failed") {
			this.evidence.step(`failed: ${ending.reason}`);
			// Taken before leaving, which changes the page: what the bot saw when it failed. A host shutting
			// down (a teardown, not the meeting's failure) does not wait for a screenshot.
			diagnostics = await this.evidence.diagnostics(this.crashed ? null : this.page, !ending.failure_cause);
		}
		if (ending.leave && this.page && !this.crashed) await leaveMeeting(this.page, this.driver, this.request.bot_name, this.log);
		this.captions?.flush();
		await this.finishAudio();
		this.status(ending.status, {
			...(ending.completion_reason ? { completion_reason: ending.completion_reason } : {}),
			...(ending.failure_cause ? { failure_cause: ending.failure_cause } : {}),
			reason: reportable(ending.reason, [this.request.passcode, this.request.channel.token, this.request.transcription?.token]),
			...(ending.status === "failed" ? { failure_stage: this.stage, join_step: this.joinStep } : {}),
			...(diagnostics ? { diagnostics } : {}),
		});
		this.profileWatch?.stop();
		await this.bot?.close().catch(() => {});
		await this.channel.drain(5_000);
		this.channel.close();
	}

	/** A profile past its disk limit ends the bot: it leaves the call and fails, naming the limit. */
	private watchProfile(dir: string): void {
		const limitBytes = this.options.profileDiskBytes;
		if (limitBytes === undefined) return;
		this.profileWatch = new ProfileWatch({
			dir,
			limitBytes,
			everyMs: this.options.profileWatchMs,
			onExceeded: (used) => {
				const reason = profileLimitReason(used, limitBytes);
				this.log(`bot ${this.request.meeting_id}: ${reason}`);
				this.requestedEnding ??= failedWithout(reason, true);
			},
		});
		this.profileWatch.start();
	}

	/** Join and stay until something ends the bot's time in the meeting. */
	private async attend(startedAt: number): Promise<Ending> {
		const { request } = this;
		// The bot's name is what it types: its characters get keys before Chromium starts.
		this.bot = await launchBotBrowser(String(request.meeting_id), this.options.browser, request.bot_name).catch(
			because("could not start Chromium"),
		);
		this.evidence.step("started Chromium");
		this.watchProfile(this.bot.profileDir);
		this.bot.browser.on("disconnected", () => {
			this.crashed ??= this.requestedEnding ? null : "Chromium disconnected";
		});
		const page = await this.bot.browser.newPage().catch(because("could not open a browser page"));
		this.page = page;
		page.on("error", (err) => {
			this.crashed ??= `page crashed: ${err.message}`;
		});
		const { audio } = this;
		await preparePage(page, {
			onAudioChunk: (base64) => audio.push(Buffer.from(base64, "base64")),
			onHeard: (voicedMs) => this.heard.add(voicedMs, this.now()),
			// Caption changes as the page makes them, between readings (the next reading confirms what settled).
			onCaptions: ({ captions, activeSpeakers }) => {
				if (this.stage !== "active") return;
				const now = this.now();
				if (this.captions?.update(captions, activeSpeakers, now)) this.captionWatch?.saw(captions, now);
			},
		}).catch(because("could not prepare the browser page"));
		const url = this.driver.joinUrl(request.meeting_url, request.passcode ?? null);
		this.evidence.step(`opening the meeting page ${url}`);
		this.joinStep = "open_page";
		const unopened = await openMeetingPage(page, this.driver, url, request.bot_name);
		// A load that failed because Chromium went away is reported as the crash.
		if (this.crashed) throw new Error(this.crashed);
		if (unopened) return unopened;
		this.evidence.step("opened the meeting page");
		this.joinStep = "prejoin";
		const input = pageInput(page, this.bot.display);
		if (input.kind === "devtools") this.evidence.step("clicks and types with DevTools events (no xdotool on the bot's display)");
		return this.requestedEnding ?? this.watch(page, input, startedAt, url);
	}

	private async watch(page: Page, input: PageInput, startedAt: number, url: string): Promise<Ending> {
		// Each tick reads the whole page (its visible text, captions, tiles) through the DevTools
		// protocol: 250 ms keeps a caption's first read well inside the 500 ms budget while costing
		// each bot less than 150 ms did (docs/bot-fleet.md#density).
		const pollMs = this.options.pollMs ?? 250;
		const { driver, request, evidence } = this;
		const joining = new JoinAttempts({
			driver,
			request,
			evidence,
			input,
			timeoutMs: this.options.joinTimeoutMs ?? 60_000,
			now: this.now(),
		});
		const hostWait = new HostWait({
			recheckMs: this.options.hostRecheckMs ?? driver.hostRecheckMs ?? null,
			limitMs: leaveLimits(request.automatic_leave).max_wait_for_host,
		});
		const prefix = `${this.request.meeting_id}-${randomBytes(3).toString("hex")}`;
		const participants = new ParticipantTracker();
		const chat = new ChatTracker(this.request.bot_name);
		this.chat = chat;
		let lobbySince: number | null = null;
		let admittedAt: number | null = null;
		let aloneSince: number | null = null;
		let lastSpeechAt = 0;
		let failedReads = 0;
		let tick = 0;
		let callReady = false;
		let prepareAttempts = 1;
		for (;;) {
			tick++;
			if (this.crashed) throw new Error(this.crashed);
			await runCommands(this.commands, page, this.stage === "active", {
				request: this.request,
				driver: this.driver,
				channel: this.channel,
				chat: this.chat,
				transcriber: this.audio.transcriber,
				captions: this.captions,
				actions: this.actions,
				leave: () => {
					this.requestedEnding ??= leaving("stopped", LEAVE_COMMAND);
				},
				log: this.log,
			});
			if (this.requestedEnding) return this.requestedEnding;
			const now = this.now();
			let snap: MeetingSnapshot;
			try {
				snap = await this.driver.snapshot(page, {
					botName: this.request.bot_name,
					admittedForMs: admittedAt === null ? null : now - admittedAt,
					watchCaptions: this.stage === "active" && this.captions !== null,
				});
				failedReads = 0;
			} catch (err) {
				// Navigations (Zoom's audio set-up redirects) destroy the context for a moment.
				if (this.crashed) throw err;
				if (++failedReads > 60) throw new Error(`the meeting page stopped answering: ${errorText(err)}`);
				await sleep(pollMs);
				continue;
			}
			// Pop-ups (notices, permission prompts) can come at any time and block clicks.
			if (tick % 5 === 0 && ["prejoin", "unknown", "lobby", "in_call"].includes(snap.state))
				await this.driver.dismissInterruptions(page).catch(() => false);
			this.evidence.notePage(snap.state);
			const outcome = outcomeOf(snap.state, this.stage);
			if (outcome) return outcome;
			if (this.stage !== "active") await this.awaitHost(page, url, snap.state, hostWait, joining, now);
			if (snap.state === "prejoin") await joining.onPrejoin(page, this.now);
			if (joining.askedToJoin && this.joinStep === "prejoin") this.joinStep = "ask_to_join";
			const kind = helpKindOf(snap.state, joining.joinButtonMissing);
			const wasStuckOn = this.help.asking;
			const move = this.help.observe(kind, now);
			if (move === "ask" && kind) await this.askForHelp(page, kind);
			if (move === "recovered") {
				// The limits that stood still while the bot asked for help count again from now.
				joining.resume(now, snap.state, wasStuckOn);
				if (lobbySince !== null) lobbySince = now;
				if (aloneSince !== null) aloneSince = now;
				lastSpeechAt = now;
				this.resumeAfterHelp(snap.state);
				// Back to its live status: captions that still cannot be read are asked about afresh.
				this.captionWatch?.restart(now);
			}
			const helping = this.help.asking !== null;
			switch (snap.state) {
				case "lobby":
					if (this.stage === "joining") {
						this.stage = "awaiting_admission";
						this.joinStep = "lobby";
						lobbySince = now;
						this.status("awaiting_admission");
					}
					if (tick % 5 === 0 && (await this.driver.recoverLobby?.(page).catch(() => false)))
						this.log("the lobby connection dropped; asked to join again");
					break;
				case "in_call": {
					if (this.stage !== "active") {
						this.stage = "active";
						this.joinStep = "in_call";
						admittedAt = now;
						lastSpeechAt = now;
						this.status("active");
						callReady = await this.startCall(page, prefix, now);
					} else if (!callReady && tick % 2 === 0 && prepareAttempts++ < 20) {
						callReady = await this.driver.prepareCall(page, this.callOptions).catch(() => false);
					}
					this.audio.noteSpeakers(snap.activeSpeakers);
					if (this.captions?.update(snap.captions, snap.activeSpeakers, now)) this.captionWatch?.saw(snap.captions, now);
					if (snap.captions.length > 0 || snap.activeSpeakers.length > 0) lastSpeechAt = now;
					participants.update(snap.participants, (event, name) =>
						this.channel.send({ type: "participant", event, participant: { id: name, name }, timestamp: new Date(now).toISOString() }),
					);
					for (const message of chat.update(snap.chat, now)) this.channel.send({ type: "chat", message });
					if (participants.count > 0) aloneSince = null;
					else if (participants.everJoined) aloneSince ??= now;
					if (!helping) await this.watchCaptions(page, now);
					break;
				}
				default:
					// The bot does not time itself out of needs_help: the room's help timeout does.
					if (!helping && this.stage === "joining") {
						const timedOut = joining.timedOut(now, snap.state);
						if (timedOut) return timedOut;
					}
			}
			// While it asks for help the bot is neither waiting in the lobby nor in the call: only max_bot_time counts.
			const inLobbyMs = !helping && this.stage === "awaiting_admission" && lobbySince !== null ? now - lobbySince : null;
			const waitingForHostMs = helping ? null : hostWait.waitedMs(now);
			const aloneMs = aloneSince === null ? null : now - aloneSince;
			const { everJoined } = participants;
			const call =
				helping || admittedAt === null ? null : { sinceAdmittedMs: now - admittedAt, everJoined, aloneMs, silentMs: now - lastSpeechAt };
			const rule = autoLeave({ sinceStartMs: now - startedAt, inLobbyMs, waitingForHostMs, call }, this.request.automatic_leave);
			if (rule) return rule;
			await sleep(pollMs);
		}
	}

	/**
	 * The page says the host has not started the meeting: the bot stays where it is (`joining`),
	 * says so in its status, re-opens a page that does not update itself, and never asks for help.
	 */
	private async awaitHost(page: Page, url: string, state: PageState, wait: HostWait, joining: JoinAttempts, now: number): Promise<void> {
		const move = wait.observe(state, now);
		if (move === "started") {
			this.evidence.step(`the page says the host has not started the meeting: ${wait.reason}`);
			this.status(this.stage, { reason: wait.reason });
		} else if (move === "over") {
			this.evidence.step("the host started the meeting");
			if (state === "prejoin") this.status(this.stage, { reason: "the host started the meeting; joining" });
		}
		if (state !== "waiting_for_host") return;
		joining.waitForHost(now);
		if (this.stage !== "joining" || !wait.reopenDue(now)) return;
		await page.goto(url, { waitUntil: "domcontentloaded", timeout: 30_000 }).catch((err: unknown) => {
			this.log(`re-opening the meeting page: ${errorText(err)}`);
		});
	}

	/** Admitted: pick the transcript source, start audio capture, open the panels. */
	private async startCall(page: Page, prefix: string, now: number): Promise<boolean> {
		const { request } = this;
		this.callStartedAt = now;
		this.actions = new InCallActions({
			page,
			browser: page.browser(),
			driver: this.driver,
			emit: (name, payload) => this.channel.send({ type: "event", name, payload }),
			egress: this.options.egress,
			log: this.log,
		});
		const source = transcriptSource(request, {
			policy: this.options.egress.policy,
			prefix,
			callStartedAt: now,
			now: this.now,
			captionSettleMs: this.options.captionSettleMs ?? 1_200,
			audio: this.audio,
			emit: (segment) => this.channel.send({ type: "segment", segment }),
			log: this.log,
		});
		this.audio.transcriber = source.transcriber;
		this.captions = source.captions;
		if (source.captions) this.captionWatch = new CaptionWatch(this.heard, now, this.options.captionWatch);
		if (this.audio.transcriber || request.recording_enabled)
			await page
				.evaluate((capture) => window.__bot.startCapture(capture), this.driver.audioCapture ?? null)
				.catch(because("could not start capturing the meeting audio"));
		// Caption changes are watched from now, not from the next reading: the call's first line would wait a tick.
		if (this.captions)
			await this.driver.snapshot(page, { botName: request.bot_name, admittedForMs: 0, watchCaptions: true }).catch(() => null);
		// The level is measured whatever the transcript comes from; without it the bot only loses the caption rule.
		await page.evaluate(() => window.__bot.startLevels()).catch((err: unknown) => this.log(`audio level: ${errorText(err)}`));
		return this.driver.prepareCall(page, this.callOptions).catch((err: unknown) => {
			this.log(`prepare call: ${errorText(err)}`);
			return false;
		});
	}

	/** What the driver needs to get the call ready: the request's caption language, and the step log for what it finds. */
	private get callOptions(): CallOptions {
		return { language: this.request.language ?? null, step: (words) => this.evidence.step(words) };
	}

	/** Last transcription passes, then the recording upload, before the final status. */
	private async finishAudio(): Promise<void> {
		const { audio } = this;
		await audio.transcriber?.flush().catch((err: unknown) => this.log(`transcription flush: ${errorText(err)}`));
		await deliverRecording(audio, this.request.recording_upload_url, this.request.channel.token).catch((err: unknown) =>
			this.log(`recording upload: ${errorText(err)}`),
		);
	}

	/**
	 * People talk and no caption is read: the bot asks for help once (it stays in the call, its
	 * status `needs_help`), and reports `active` again at the first caption it reads.
	 */
	private async watchCaptions(page: Page, now: number): Promise<void> {
		const watch = this.captionWatch;
		const move = watch?.observe(now);
		if (move === "ask") await this.askForHelp(page, "captions_unreadable", watch?.reason(now, this.request.recording_enabled));
		if (move === "recovered") {
			this.evidence.step("read a caption again");
			this.status("active", { reason: "a caption was read again: the transcript goes on" });
		}
	}

	/** Once per episode: what the bot is stuck on, with the page's text and a screenshot uploaded first. */
	private async askForHelp(page: Page, kind: HelpKind, reason = HELP_REASONS[kind]): Promise<void> {
		this.evidence.step(`asked for help: ${reason}`);
		this.log(`bot ${this.request.meeting_id}: needs help (${kind})`);
		const help = await this.evidence.help(page, kind);
		this.status("needs_help", { help, reason, join_step: this.joinStep });
	}

	/** Out of needs_help: the room hears the live status the page shows (the watch loop reports a new stage itself). */
	private resumeAfterHelp(state: PageState): void {
		this.evidence.step(`recognised the page again (${state})`);
		if (state === "prejoin") {
			this.stage = "joining";
			this.status("joining");
		} else if (!(state === "lobby" && this.stage === "joining") && !(state === "in_call" && this.stage !== "active")) {
			this.status(this.stage);
		}
	}
}

/** Rethrows an error with the step it broke, so the reported reason names it. */
function because(step: string): (err: unknown) => never {
	return (err) => {
		throw new Error(`${step}: ${errorText(err)}`);
	};
}
