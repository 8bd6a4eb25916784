/**
 * The way into the meeting: asking to join from the pre-join screen, again after a join button
 * that was not where the driver looks (every JOIN_RETRY_MS), and the join deadline, which
 * stands still while the bot asks for help and starts again when it is back.
 */
import type { Page } from "puppeteer-core";
import type { HelpKind } from "../../src/bot-channel/help-report.ts";
import type { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { LayoutChanged, type MeetingDriver, type PageInput, type PageState } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import type { Evidence } from "./evidence.ts";
import { type Ending, endingFor, seconds } from "./outcomes.ts";

/** How often a join screen whose join button was not found is tried again. */
const JOIN_RETRY_MS = 3_000;

export class JoinAttempts {
	private asked = false;
	private askedAgain = false;
	private buttonMissing = false;
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
			await driver.join(page, { botName: request.bot_name, passcode: request.passcode ?? null, step, again: retrying, input });
		} catch (err) {
			if (!(err instanceof LayoutChanged)) throw new Error(`could not join: ${errorText(err)}`);
			step(`no join button found: ${err.message}`);
			this.buttonMissing = true;
			return;
		}
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

	/** The join failure once the deadline has passed without a lobby or a call. */
	timedOut(now: number, state: PageState): Ending | null {
		if (now < this.deadline) return null;
		const limit = seconds(this.options.timeoutMs);
		return endingFor(
			"join_failure",
			this.asked
				? `no lobby or call within ${limit} of asking to join (page: ${state})`
				: `no join screen within ${limit} (page: ${state})`,
		);
	}
}
