/**
 * What a bot can show of where it is, for a help request (`needs_help`) and for every failure:
 * its last steps, the page's visible text and a screenshot. The screenshot is a JPEG of the
 * viewport only, uploaded to the room (`SpawnRequest.screenshot_upload_url`) before the status
 * that cites it. Everything here is best effort and bounded in time: a bot that cannot take or
 * upload a screenshot still reports, with `screenshot: null`.
 */
import type { Page } from "puppeteer-core";
import { type FailureDiagnostics, type HelpKind, type HelpReport, SCREENSHOT_MAX_BYTES } from "../../src/bot-channel/help-report.ts";
import type { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import type { PageState } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import { reportablePageText, type Secrets, StepLog } from "./step-log.ts";

/** JPEG qualities tried in turn: the second only if the first is over the cap (it never is at 1280×800). */
const JPEG_QUALITIES = [60, 30];
const SCREENSHOT_TIMEOUT_MS = 2_500;
const UPLOAD_TIMEOUT_MS = 4_000;
const PAGE_TEXT_TIMEOUT_MS = 1_000;
/** Read from the page before it is cleaned and cut to PAGE_TEXT_MAX: enough, and never megabytes. */
const PAGE_TEXT_READ_MAX = 20_000;

export class Evidence {
	readonly log: StepLog;
	private readonly request: SpawnRequest;
	private readonly secrets: Secrets;
	private readonly warn: (line: string) => void;
	private readonly onStep: (words: string) => void;
	private shots = 0;
	/** The driver's last reading of the page. */
	private lastState: PageState | null = null;

	constructor(options: { request: SpawnRequest; now: () => number; log: (line: string) => void; onStep?: (words: string) => void }) {
		const { request } = options;
		this.request = request;
		this.secrets = [request.passcode, request.channel.token, request.transcription?.token];
		this.log = new StepLog({ now: options.now, secrets: this.secrets });
		this.warn = options.log;
		this.onStep = options.onStep ?? (() => {});
	}

	step(words: string): void {
		const kept = this.log.add(words);
		if (kept) this.onStep(kept);
	}

	/** A step for every change of screen, so the log reads as the bot's way through the pages. */
	notePage(state: PageState): void {
		if (state === this.lastState) return;
		this.lastState = state;
		this.step(`page now shows: ${state}`);
	}

	/** What the bot sees while it asks for help; the screenshot is uploaded first. */
	async help(page: Page, kind: HelpKind): Promise<HelpReport> {
		const [page_text, screenshot] = await Promise.all([this.pageText(page), this.screenshot(page, "help")]);
		return { kind, page_text, screenshot };
	}

	/** What the bot saw last before it failed; without a page (Chromium gone) only the steps. */
	async diagnostics(page: Page | null, withScreenshot = true): Promise<FailureDiagnostics> {
		const [page_text, screenshot] = page
			? await Promise.all([this.pageText(page), withScreenshot ? this.screenshot(page, "failure") : null])
			: ["", null];
		return { steps: this.log.steps, page_state: this.lastState, page_text, screenshot };
	}

	async pageText(page: Page): Promise<string> {
		const read = page.evaluate((max: number) => {
			// biome-ignore lint/performance/useDomNodeTextContent: innerText is what the page visibly says.
			return (document.body?.innerText ?? "").slice(0, max);
		}, PAGE_TEXT_READ_MAX);
		const text = await within(read, PAGE_TEXT_TIMEOUT_MS).catch(() => "");
		return reportablePageText(text, this.secrets);
	}

	/** Takes a screenshot and uploads it; its name, or null when either did not work. */
	private async screenshot(page: Page, purpose: "help" | "failure"): Promise<string | null> {
		const base = this.request.screenshot_upload_url;
		if (!base || page.isClosed()) return null;
		const name = `a${this.request.attempt}-${purpose}-${++this.shots}.jpg`;
		try {
			const image = await this.capture(page);
			if (!image) return null;
			const response = await fetch(`${base.replace(/\/+$/, "")}/${name}`, {
				method: "PUT",
				headers: { "content-type": "image/jpeg", authorization: `Bearer ${this.request.channel.token}` },
				body: new Blob([new Uint8Array(image)], { type: "image/jpeg" }),
				signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
			});
			await response.body?.cancel();
			if (response.status === 201) return name;
			this.warn(`bot ${this.request.meeting_id}: the screenshot upload answered ${response.status}`);
		} catch (err) {
			this.warn(`bot ${this.request.meeting_id}: no screenshot: ${errorText(err)}`);
		}
		return null;
	}

	/** A JPEG of the page now, bounded in time and size; null when none could be taken. */
	async capture(page: Page): Promise<Uint8Array | null> {
		for (const quality of JPEG_QUALITIES) {
			const image = await within(page.screenshot({ type: "jpeg", quality, optimizeForSpeed: true }), SCREENSHOT_TIMEOUT_MS);
			if (image.byteLength <= SCREENSHOT_MAX_BYTES) return image;
		}
		return null;
	}
}

/** The promise's value, or a rejection once `ms` have passed (the page may hang). */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
