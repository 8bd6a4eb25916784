/**
 * What a bot sets up once it is admitted (session.ts): its in-call actions, the transcript's
 * source (captions or audio) and, with captions, the watch on whether they can be read; then
 * audio capture, the level meter and the call's panels on the page.
 */
import type { Page } from "puppeteer-core";
import type { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import type { CallOptions, MeetingDriver } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import { InCallActions } from "./actions.ts";
import type { MeetingAudio } from "./audio.ts";
import { because } from "./because.ts";
import { CaptionWatch, type CaptionWatchLimits, type HeardSpeech } from "./caption-watch.ts";
import type { BotChannel } from "./channel.ts";
import type { HostEgress } from "./egress.ts";
import type { CaptionTracker } from "./transcript.ts";
import { transcriptSource } from "./transcript-source.ts";

export interface CallParts {
	actions: InCallActions;
	captions: CaptionTracker | null;
	/** Only while the transcript comes from captions alone. */
	captionWatch: CaptionWatch | null;
}

/** The call's parts, made at once (captions the page reports from now on are read): the recording's transcriber goes to `audio`. */
export function callParts(
	page: Page,
	o: {
		request: SpawnRequest;
		driver: MeetingDriver;
		channel: BotChannel;
		egress: HostEgress;
		audio: MeetingAudio;
		heard: HeardSpeech;
		prefix: string;
		now: () => number;
		callStartedAt: number;
		captionSettleMs: number;
		captionWatch: Partial<CaptionWatchLimits> | undefined;
		log: (line: string) => void;
	},
): CallParts {
	const actions = new InCallActions({
		page,
		browser: page.browser(),
		driver: o.driver,
		emit: (name, payload) => o.channel.send({ type: "event", name, payload }),
		egress: o.egress,
		log: o.log,
	});
	const source = transcriptSource(o.request, {
		policy: o.egress.policy,
		prefix: o.prefix,
		callStartedAt: o.callStartedAt,
		now: o.now,
		captionSettleMs: o.captionSettleMs,
		audio: o.audio,
		emit: (segment) => o.channel.send({ type: "segment", segment }),
		log: o.log,
	});
	o.audio.transcriber = source.transcriber;
	if (source.fallback)
		o.channel.send({ type: "transcription", state: "fallback", ...source.fallback, timestamp: new Date(o.now()).toISOString() });
	// Captions that cannot be read are a help request only where they are the transcript.
	const captionWatch = source.captions && !source.transcriber ? new CaptionWatch(o.heard, o.callStartedAt, o.captionWatch) : null;
	return { actions, captions: source.captions, captionWatch };
}

/** Audio capture, the level meter and the driver's call set-up (captions on, panels open); whether the call is ready. */
export async function startCallMedia(
	page: Page,
	o: {
		request: SpawnRequest;
		driver: MeetingDriver;
		audio: MeetingAudio;
		captions: CaptionTracker | null;
		callOptions: CallOptions;
		log: (line: string) => void;
	},
): Promise<boolean> {
	const { request, driver } = o;
	if (o.audio.transcriber || request.recording_enabled)
		await page
			.evaluate((capture) => window.__bot.startCapture(capture), driver.audioCapture ?? null)
			.catch(because("could not start capturing the meeting audio"));
	// Caption changes are watched from now, not from the next reading: the call's first line would wait a tick.
	if (o.captions) await driver.snapshot(page, { botName: request.bot_name, admittedForMs: 0, watchCaptions: true }).catch(() => null);
	// The level is measured whatever the transcript comes from; without it the bot only loses the caption rule.
	await page.evaluate(() => window.__bot.startLevels()).catch((err: unknown) => o.log(`audio level: ${errorText(err)}`));
	return driver.prepareCall(page, o.callOptions).catch((err: unknown) => {
		o.log(`prepare call: ${errorText(err)}`);
		return false;
	});
}
