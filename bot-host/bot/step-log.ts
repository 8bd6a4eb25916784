/**
 * The bot's last steps in words ("opened the join page", "typed the bot's name", "page now
 * shows: lobby"), kept for a failure's diagnostics: the newest DIAGNOSTIC_STEPS_MAX, each at most
 * DIAGNOSTIC_STEP_MAX characters, links without their secrets and the passcode and tokens masked.
 */

import { DIAGNOSTIC_STEP_MAX, DIAGNOSTIC_STEPS_MAX, type DriverStep, PAGE_TEXT_MAX } from "../../src/bot-channel/help-report.ts";
import { linksWithoutSecrets } from "../../src/bot-channel/protocol.ts";
import { reportable } from "./outcomes.ts";
import { shorten } from "./text-bounds.ts";

export type Secrets = readonly (string | null | undefined)[];

export class StepLog {
	private readonly entries: DriverStep[] = [];
	private readonly now: () => number;
	private readonly secrets: Secrets;

	constructor(options: { now: () => number; secrets: Secrets }) {
		this.now = options.now;
		this.secrets = options.secrets;
	}

	/** Keeps a step, as it may be reported (secrets masked, bounded); the words kept, or null for none. */
	add(words: string): string | null {
		const step = shorten(reportable(words.replace(/\p{Cc}+/gu, " ").trim(), this.secrets), DIAGNOSTIC_STEP_MAX);
		if (step === "") return null;
		this.entries.push({ at: new Date(this.now()).toISOString(), step });
		if (this.entries.length > DIAGNOSTIC_STEPS_MAX) this.entries.splice(0, this.entries.length - DIAGNOSTIC_STEPS_MAX);
		return step;
	}

	/** The kept steps, oldest first. */
	get steps(): DriverStep[] {
		return this.entries.map((entry) => ({ ...entry }));
	}
}

/**
 * What a page visibly says, as it may leave the bot host: spaces collapsed, line breaks kept,
 * links without their query, secrets masked, at most PAGE_TEXT_MAX characters.
 */
export function reportablePageText(text: string, secrets: Secrets): string {
	let tidy = linksWithoutSecrets(
		text
			.replace(/\r\n?/g, "\n")
			.replace(/\p{Cc}/gu, (c) => (c === "\n" ? c : " "))
			.replace(/ +/g, " ")
			.replace(/ ?\n\s*/g, "\n")
			.trim(),
	);
	for (const secret of secrets) if (secret) tidy = tidy.split(secret).join("***");
	return shorten(tidy, PAGE_TEXT_MAX);
}
