/**
 * The bot's watch on its meeting (session.ts): the page is read every tick; each reading drives
 * the status machine (joining → awaiting_admission → active), the join, help requests, the
 * lobby, the call and its transcript, and the automatic leave rules.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Page } from "puppeteer-core";
import type { HelpKind } from "../../src/bot-channel/help-report.ts";
import type { CallOptions, MeetingSnapshot, PageInput, PageState } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import { AttendanceClock } from "./attendance-clock.ts";
import { callParts, startCallMedia } from "./call-start.ts";
import { runCommands } from "./commands.ts";
import { HELP_REASONS, helpKindOf } from "./help.ts";
import { HostWait, JoinAttempts } from "./joining.ts";
import { autoLeave, leaveLimits } from "./limits.ts";
import { type Ending, leaving, outcomeOf } from "./outcomes.ts";
import { SessionState } from "./session-state.ts";
import { ChatTracker } from "./transcript.ts";

const LEAVE_COMMAND = "asked to leave (leave command)";

/** What the watch loop carries from one reading of the page to the next. */
interface Watch {
	page: Page;
	url: string;
	joining: JoinAttempts;
	hostWait: HostWait;
	clock: AttendanceClock;
	/** The start of this bot's segment ids. */
	prefix: string;
	tick: number;
	/** Readings in a row the page did not answer. */
	failedReads: number;
	/** Whether the driver got the call ready (captions on, panels open); retried every other tick, 20 times at most. */
	callReady: boolean;
	prepareAttempts: number;
}

export abstract class MeetingWatch extends SessionState {
	/** Reads the page every tick until something ends the bot's time in the meeting; each reading is one `step`. */
	protected async watch(page: Page, input: PageInput, startedAt: number, url: string): Promise<Ending> {
		// Each tick reads the whole page (its visible text, captions, tiles) through the DevTools
		// protocol: 250 ms keeps a caption's first read well inside the 500 ms budget while costing
		// each bot less than 150 ms did (docs/bot-fleet.md#density).
		const pollMs = this.options.pollMs ?? 250;
		const { driver, request, evidence } = this;
		const watch: Watch = {
			page,
			url,
			joining: new JoinAttempts({ driver, request, evidence, input, timeoutMs: this.options.joinTimeoutMs ?? 60_000, now: this.now() }),
			hostWait: new HostWait({
				recheckMs: this.options.hostRecheckMs ?? driver.hostRecheckMs ?? null,
				limitMs: leaveLimits(request.automatic_leave).max_wait_for_host,
			}),
			clock: new AttendanceClock(startedAt),
			prefix: `${request.meeting_id}-${randomBytes(3).toString("hex")}`,
			tick: 0,
			failedReads: 0,
			callReady: false,
			prepareAttempts: 1,
		};
		this.chat = new ChatTracker(request.bot_name);
		for (;;) {
			watch.tick++;
			if (this.crashed) throw new Error(this.crashed);
			await this.obeyCommands(page);
			if (this.requestedEnding) return this.requestedEnding;
			const now = this.now();
			const snap = await this.readPage(watch, now);
			const ending = snap ? await this.step(watch, snap, now) : null;
			if (ending) return ending;
			await sleep(pollMs);
		}
	}

	/** The room's commands that came since the last tick (chat, speak, leave, ...). */
	private obeyCommands(page: Page): Promise<void> {
		return runCommands(this.commands, page, this.stage === "active", {
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
	}

	/** One reading of the page; null when it did not answer this time (navigations destroy the context for a moment). */
	private async readPage(watch: Watch, now: number): Promise<MeetingSnapshot | null> {
		try {
			const snap = await this.driver.snapshot(watch.page, {
				botName: this.request.bot_name,
				admittedForMs: watch.clock.admittedForMs(now),
				watchCaptions: this.stage === "active" && this.captions !== null,
			});
			watch.failedReads = 0;
			return snap;
		} catch (err) {
			// Zoom's audio set-up redirects, for one.
			if (this.crashed) throw err;
			if (++watch.failedReads > 60) throw new Error(`the meeting page stopped answering: ${errorText(err)}`);
			return null;
		}
	}

	/** What one reading means: an outcome, the join's next move, help, the lobby or the call, and the leave rules. */
	private async step(watch: Watch, snap: MeetingSnapshot, now: number): Promise<Ending | null> {
		const { page, joining, clock } = watch;
		// Pop-ups (notices, permission prompts) can come at any time and block clicks.
		if (watch.tick % 5 === 0 && ["prejoin", "unknown", "lobby", "in_call"].includes(snap.state))
			await this.driver.dismissInterruptions(page).catch(() => false);
		this.evidence.notePage(snap.state);
		const outcome = outcomeOf(snap.state, this.stage);
		if (outcome) return outcome;
		if (this.stage !== "active") await this.awaitHost(page, watch.url, snap.state, watch.hostWait, joining, now);
		if (snap.state === "prejoin") await joining.onPrejoin(page, this.now);
		if (joining.askedToJoin && this.joinStep === "prejoin") this.joinStep = "ask_to_join";
		const helping = await this.watchHelp(watch, snap.state, now);
		switch (snap.state) {
			case "lobby":
				await this.inLobby(watch, now);
				break;
			case "in_call":
				await this.inCall(watch, snap, now, helping);
				break;
			default:
				// The bot does not time itself out of needs_help: the room's help timeout does.
				if (!helping && this.stage === "joining") {
					const timedOut = joining.timedOut(now, snap.state);
					if (timedOut) return timedOut;
				}
		}
		const attendance = clock.attendance(now, {
			helping,
			inLobby: this.stage === "awaiting_admission",
			waitingForHostMs: watch.hostWait.waitedMs(now),
		});
		return autoLeave(attendance, this.request.automatic_leave);
	}

	/** An unknown screen or a wall lasting past the grace asks for help; recognised again, the bot's clocks count on. Whether it asks now. */
	private async watchHelp(watch: Watch, state: PageState, now: number): Promise<boolean> {
		const kind = helpKindOf(state, watch.joining.joinButtonMissing);
		const wasStuckOn = this.help.asking;
		const move = this.help.observe(kind, now);
		if (move === "ask" && kind) await this.askForHelp(watch.page, kind);
		if (move === "recovered") {
			// The limits that stood still while the bot asked for help count again from now.
			watch.joining.resume(now, state, wasStuckOn);
			watch.clock.resume(now);
			this.resumeAfterHelp(state);
			// Back to its live status: captions that still cannot be read are asked about afresh.
			this.captionWatch?.restart(now);
		}
		return this.help.asking !== null;
	}

	private async inLobby(watch: Watch, now: number): Promise<void> {
		if (this.stage === "joining") {
			this.stage = "awaiting_admission";
			this.joinStep = "lobby";
			watch.clock.enteredLobby(now);
			this.status("awaiting_admission");
		}
		if (watch.tick % 5 === 0 && (await this.driver.recoverLobby?.(watch.page).catch(() => false)))
			this.log("the lobby connection dropped; asked to join again");
	}

	/** Admitted (set up the call once), then each reading: speakers, captions, participants, chat, and whether captions can be read. */
	private async inCall(watch: Watch, snap: MeetingSnapshot, now: number, helping: boolean): Promise<void> {
		const { page, clock } = watch;
		if (this.stage !== "active") {
			this.stage = "active";
			this.joinStep = "in_call";
			clock.admitted(now);
			this.status("active");
			watch.callReady = await this.startCall(page, watch.prefix, now);
		} else if (!watch.callReady && watch.tick % 2 === 0 && watch.prepareAttempts++ < 20) {
			watch.callReady = await this.driver.prepareCall(page, this.callOptions).catch(() => false);
		}
		this.audio.noteSpeakers(snap.activeSpeakers);
		if (this.captions?.update(snap.captions, snap.activeSpeakers, now)) this.captionWatch?.saw(snap.captions, now);
		clock.participants.update(snap.participants, (event, name) =>
			this.channel.send({ type: "participant", event, participant: { id: name, name }, timestamp: new Date(now).toISOString() }),
		);
		for (const message of this.chat?.update(snap.chat, now) ?? []) this.channel.send({ type: "chat", message });
		clock.sawCall(snap.captions.length > 0 || snap.activeSpeakers.length > 0, now);
		if (!helping) await this.watchCaptions(page, now);
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

	/** Admitted: pick the transcript source, start the streamed recording and audio capture, open the panels. */
	private async startCall(page: Page, prefix: string, now: number): Promise<boolean> {
		const { request, options } = this;
		this.callStartedAt = now;
		const parts = callParts(page, {
			request,
			driver: this.driver,
			channel: this.channel,
			egress: options.egress,
			audio: this.audio,
			heard: this.heard,
			prefix,
			now: this.now,
			callStartedAt: now,
			captionSettleMs: options.captionSettleMs ?? 1_200,
			captionWatch: options.captionWatch,
			log: this.log,
		});
		this.actions = parts.actions;
		this.captions = parts.captions;
		this.captionWatch = parts.captionWatch;
		const { driver, audio, captions, callOptions, log } = this;
		// Before capture, so the recording starts with the call (silence until the first audio).
		await this.streamed
			?.start(page, this.bot?.display ?? null)
			.catch((err: unknown) => log(`recording: could not start: ${errorText(err)}`));
		return startCallMedia(page, { request, driver, audio, captions, callOptions, log });
	}

	/** What the driver needs to get the call ready: the request's caption language, and the step log for what it finds. */
	private get callOptions(): CallOptions {
		return { language: this.request.language ?? null, step: (words) => this.evidence.step(words) };
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
