/**
 * The way into the meeting: asking to join from the pre-join screen, again after a join button
 * that was not where the driver looks or not ready yet (every JOIN_RETRY_MS), the join deadline,
 * which stands still while the bot asks for help or waits for the host, and the wait for a host
 * who has not started the meeting.
 */
import type { Page } from "puppeteer-core";
import type { HelpKind } from "../../src/bot-channel/help-report.ts";
import type { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { JoinNotReady, LayoutChanged, type MeetingDriver, type PageInput, type PageState } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import type { Evidence } from "./evidence.ts";
import { duration, type Ending, endingFor, seconds } from "./outcomes.ts";

/** How often a join screen whose join button was not found is tried again. */
const JOIN_RETRY_MS = 3_000;

export class JoinAttempts {
	private asked = false;
	private askedAgain = false;
	private buttonMissing = false;
	/** The last try found the join screen not ready yet (Zoom's Join still disabled): it is tried again. */
	private notReady: string | null = null;
	private lastTry = Number.NEGATIVE_INFINITY;
	private deadline: number;
	private readonly options: { driver: MeetingDriver; request: SpawnRequest; evidence: Evidence; input: PageInput; timeoutMs: number };

	constructor(options: JoinAttempts["options"] & { now: number }) {
		this.options = options;
		this.deadline = options.now + options.timeoutMs;
	}

	/** The bot has asked to join (its name typed, Join clicked) and waits for the answer. */
	get askedToJoin(): boolean {
		return this.asked;
	}

	/** The last try found the join screen but not its join button (a `layout_changed` help request). */
	get joinButtonMissing(): boolean {
		return this.buttonMissing;
	}

	/**
	 * On the pre-join screen: ask to join, unless it tried a moment ago, or has asked already and
	 * the page does not offer Join again (a dialog that swallowed the click, Teams' "continue
	 * without audio or video"). The lobby's own dropped-connection recovery is `recoverLobby`: a
	 * page still in the lobby is never asked from here.
	 */
	async onPrejoin(page: Page, now: () => number): Promise<void> {
		if (now() - this.lastTry < JOIN_RETRY_MS) return;
		const { driver, request, evidence, input } = this.options;
		if (this.asked) {
			if (!(await driver.joinOffered?.(page).catch(() => false))) return;
			evidence.step("the join screen offers Join again: asking again");
			this.asked = false;
			this.askedAgain = true;
		}
		this.lastTry = now();
		// A try again after a missing join button tells its steps only if it gets through, so a long
		// wait for help does not push everything before it out of the bounded step log.
		const retrying = this.buttonMissing;
		const held: string[] = [];
		const step = (words: string) => (retrying ? held.push(words) : evidence.step(words));
		try {
			await driver.join(page, {
				botName: request.bot_name,
				passcode: request.passcode ?? null,
				step,
				again: retrying || this.notReady !== null,
				input,
			});
		} catch (err) {
			if (err instanceof JoinNotReady) {
				step(`the join screen is not ready yet, trying again: ${err.message}`);
				this.notReady = err.message;
				return;
			}
			if (!(err instanceof LayoutChanged)) throw new Error(`could not join: ${errorText(err)}`);
			step(`no join button found: ${err.message}`);
			this.buttonMissing = true;
			return;
		}
		this.notReady = null;
		if (retrying) evidence.step("tried to join again, and the join button was there");
		for (const words of held) evidence.step(words);
		this.asked = true;
		this.buttonMissing = false;
		// Asking again does not buy more time: a page that keeps offering Join still times out.
		if (!this.askedAgain) this.deadline = now() + this.options.timeoutMs;
	}

	/**
	 * Back from a help request: the deadline counts from now, and a pre-join screen the bot is
	 * back on is asked from again (unless the help was about its join button, which it just clicked).
	 */
	resume(now: number, state: PageState, stuckOn: HelpKind | null): void {
		this.deadline = now + this.options.timeoutMs;
		if (state === "prejoin" && stuckOn !== "layout_changed") this.asked = false;
	}

	/**
	 * The page says the host has not started the meeting: the deadline waits (the wait has its own
	 * limit), and the join screen that comes back once the host is there is asked from again.
	 */
	waitForHost(now: number): void {
		this.deadline = now + this.options.timeoutMs;
		this.asked = false;
	}

	/** The join failure once the deadline has passed without a lobby or a call. */
	timedOut(now: number, state: PageState): Ending | null {
		if (now < this.deadline) return null;
		const limit = seconds(this.options.timeoutMs);
		let reason = this.asked
			? `no lobby or call within ${limit} of asking to join (page: ${state})`
			: `no join screen within ${limit} (page: ${state})`;
		if (!this.asked && this.notReady) reason = `the join screen never took the join within ${limit}: ${this.notReady}`;
		return endingFor("join_failure", reason);
	}
}

/**
 * A host who has not started the meeting (Zoom's "(3,001)" page, V join.ts): from its first sight
 * until the join screen, a lobby or the call shows. The page is re-opened every `recheckMs`
 * when it does not update itself; the limit is `max_wait_for_host` (limits.ts).
 */
export class HostWait {
	private since: number | null = null;
	private reopenedAt = 0;
	private readonly recheckMs: number | null;
	private readonly limitMs: number;

	constructor(options: { recheckMs: number | null; limitMs: number }) {
		this.recheckMs = options.recheckMs;
		this.limitMs = options.limitMs;
	}

	/** One reading: "started" at the first sight of the wait, "over" when the host has started. */
	observe(state: PageState, now: number): "started" | "over" | null {
		if (state === "waiting_for_host") {
			if (this.since !== null) return null;
			this.since = now;
			this.reopenedAt = now;
			return "started";
		}
		if (this.since === null || !["prejoin", "lobby", "in_call"].includes(state)) return null;
		this.since = null;
		return "over";
	}

	/** How long the wait has lasted; null when there is none. */
	waitedMs(now: number): number | null {
		return this.since === null ? null : now - this.since;
	}

	/** Whether the page is to be opened again now (and from now on counts as re-opened). */
	reopenDue(now: number): boolean {
		if (this.since === null || this.recheckMs === null || now - this.reopenedAt < this.recheckMs) return false;
		this.reopenedAt = now;
		return true;
	}

	/** The status words while it waits. */
	get reason(): string {
		const recheck = this.recheckMs === null ? "" : `re-checking every ${duration(this.recheckMs)}, `;
		return `waiting for the host to start the meeting (${recheck}up to ${duration(this.limitMs)})`;
	}
}
