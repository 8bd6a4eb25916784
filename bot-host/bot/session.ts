/**
 * One bot in one meeting: Chromium, the platform driver, the bot channel, and the rules for
 * when to leave. This file is the bot's life from start to its last status: launch Chromium,
 * open the meeting page, watch the meeting (meeting-watch.ts) until something ends it, then
 * leave, deliver the audio and report the ending.
 */
import type { FailureDiagnostics } from "../../src/bot-channel/help-report.ts";
import { errorText } from "../error-text.ts";
import { deliverRecording } from "./audio.ts";
import { because } from "./because.ts";
import { launchBotBrowser } from "./browser.ts";
import { leaveMeeting, openMeetingPage, preparePage } from "./meeting-page.ts";
import { MeetingWatch } from "./meeting-watch.ts";
import { pageInput } from "./os-input.ts";
import { type Ending, endingFor, failedWithout, leaving, reportable } from "./outcomes.ts";
import { ProfileWatch, profileLimitReason } from "./profile-watch.ts";
import { screenFor } from "./recording/plan.ts";

export class BotSession extends MeetingWatch {
	/** A JPEG of the meeting page now (the canary's record of each step); null without a page. */
	async screenshot(): Promise<Uint8Array | null> {
		const page = this.page;
		if (!page || page.isClosed() || this.crashed) return null;
		return this.evidence.capture(page).catch(() => null);
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
		// The video ends in the meeting, not on the page the platform shows after it.
		await this.streamed?.stopGrabbing();
		if (ending.leave && this.page && !this.crashed) await leaveMeeting(this.page, this.driver, this.request.bot_name, this.log);
		this.captions?.flush();
		await this.finishAudio();
		this.status(ending.status, {
			...(ending.completion_reason ? { completion_reason: ending.completion_reason } : {}),
			...(ending.completion_cause ? { completion_cause: ending.completion_cause } : {}),
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
		this.bot = await launchBotBrowser(
			String(request.meeting_id),
			this.options.browser,
			request.bot_name,
			screenFor(this.recordingMode),
		).catch(because("could not start Chromium"));
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

	/** Last transcription passes, then the recording upload (the WAV, or the streamed files' last parts), before the final status. */
	private async finishAudio(): Promise<void> {
		const { audio } = this;
		await audio.transcriber?.flush().catch((err: unknown) => this.log(`transcription flush: ${errorText(err)}`));
		await this.streamed?.finish().catch((err: unknown) => this.log(`recording parts: ${errorText(err)}`));
		await deliverRecording(audio, this.request.recording_upload_url, this.request.channel.token).catch((err: unknown) =>
			this.log(`recording upload: ${errorText(err)}`),
		);
	}
}
