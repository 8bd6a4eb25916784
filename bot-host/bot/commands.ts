/**
 * The room's commands to a bot (docs/bot-channel.md#commands), run in the order they arrived:
 * `leave` at any time, the rest once the bot is in the call.
 */
import type { Page } from "puppeteer-core";
import type { Act, SpawnRequest } from "../../src/bot-channel/protocol.ts";
import type { MeetingDriver } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import type { InCallActions } from "./actions.ts";
import type { BotChannel } from "./channel.ts";
import type { CaptionTracker, ChatTracker } from "./transcript.ts";
import type { SpeechEngine } from "./transcription/engine.ts";

/** What the commands act on: the session's parts as they stand at this tick. */
export interface CommandTarget {
	/** `reconfigure` changes its language and task. */
	request: SpawnRequest;
	driver: MeetingDriver;
	channel: BotChannel;
	chat: ChatTracker | null;
	transcriber: SpeechEngine | null;
	captions: CaptionTracker | null;
	actions: InCallActions | null;
	/** The bot was told to leave. */
	leave: () => void;
	log: (line: string) => void;
}

/** Runs the queued commands; before admission only `leave` means anything, the rest wait for the call. */
export async function runCommands(queue: { id: string; act: Act }[], page: Page, inCall: boolean, target: CommandTarget): Promise<void> {
	if (!inCall) {
		if (queue.some((c) => c.act.action === "leave")) target.leave();
		return;
	}
	for (let next = queue.shift(); next; next = queue.shift()) {
		const { act } = next;
		try {
			await runCommand(act, page, target);
		} catch (err) {
			target.log(`command ${act.action} failed: ${errorText(err)}`);
		}
	}
}

async function runCommand(act: Act, page: Page, t: CommandTarget): Promise<void> {
	switch (act.action) {
		case "leave":
			t.leave();
			return;
		case "chat_send":
			await t.driver.sendChat(page, act.text);
			t.chat?.noteSent(act.text);
			t.channel.send({ type: "event", name: "chat.sent", payload: { text: act.text } });
			return;
		case "reconfigure":
			// Takes effect on the next transcription window / caption entry.
			if (act.language !== undefined) t.request.language = act.language;
			if (act.task) t.request.task = act.task;
			if (t.transcriber) {
				t.transcriber.language = t.request.language ?? null;
				// Only the OpenAI-compatible endpoint translates.
				if (t.transcriber.task !== undefined) t.transcriber.task = t.request.task;
			}
			if (t.captions) t.captions.language = t.request.language ?? null;
			return;
		default:
			// A bot spawned without the voice agent stays a silent, camera-off listener.
			if (!t.request.voice_agent_enabled) {
				t.log(`command ${act.action} ignored: voice agent disabled for this bot`);
				return;
			}
			// Speech and screen run alongside the caption reader, not in its way.
			t.actions?.run(act).catch((err: unknown) => t.log(`command ${act.action} failed: ${errorText(err)}`));
	}
}
