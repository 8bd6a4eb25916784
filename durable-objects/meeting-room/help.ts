/**
 * A bot that asks for help (docs/status-machine.md#needs-help): its request goes into the
 * meeting's `data.help` in the same write as the move to `needs_help`; any move out of it, or a
 * request of another kind, files the request in `data.help_history`; the `help` timer fails a
 * meeting still stuck after BOT_HELP_TIMEOUT_S (`failure_cause: help_timeout`) and tells its bot
 * to leave, except for a kind that does not time out (`captions_unreadable`: the bot is in the
 * call and records). A failure's diagnostics go into `data.diagnostics` with its move.
 */
import type { HelpReport } from "../../src/bot-channel/help-report";
import {
	diagnosticsFromHelp,
	type HelpEpisode,
	helpTimesOut,
	type StoredHelp,
	storedDiagnostics,
	storedHelp,
	withEpisode,
} from "../../src/meetings/bot-help";
import { readMeetingData } from "../../src/meetings/meeting-data";
import { nowIso } from "../../src/meetings/meeting-store";
import { isTerminal, type MeetingState } from "../../src/meetings/status-machine";
import type { DataFields } from "../../src/meetings/status-writes";
import { type ScreenshotRef, screenshotKey } from "../../src/screenshots/screenshots";
import { setting } from "../../src/settings/deployment-defaults";
import type { RoomContext, RoomState, TransitionAsk } from "./context";

/** What the bot's help request uses of the room. */
export type HelpHost = Pick<RoomContext, "env" | "state" | "timers" | "applyMove" | "sendCommand">;

/** A help request without a report of its own (an older bot): a screen it does not know, nothing seen. */
const UNDESCRIBED: HelpReport = { kind: "unknown_screen", page_text: "", screenshot: null };

/** The keys of `data` a move writes for the bot's help and diagnostics; undefined when it writes none. */
export async function helpFields(room: HelpHost, state: RoomState, ask: TransitionAsk): Promise<DataFields | undefined> {
	const from = state.machine.status;
	if (ask.to !== "needs_help" && from !== "needs_help" && !(isTerminal(ask.to) && ask.diagnostics)) return undefined;
	const now = nowIso();
	const kept = from === "needs_help" ? await keptHelp(room, state.meetingId) : { help: null, history: [] };
	if (ask.to === "needs_help") {
		const report = ask.help ?? UNDESCRIBED;
		const screenshot = await uploaded(room, state, report.screenshot);
		// Asking again about the same thing keeps its `since`; something else is a new request, the last one filed.
		const same = kept.help?.kind === report.kind ? kept.help : null;
		const help = storedHelp(report, ask.reason, same?.since ?? now, screenshot);
		return kept.help && !same ? { help, help_history: withEpisode(kept.history, kept.help, now) } : { help };
	}
	const fields: DataFields = {};
	if (kept.help) {
		fields.help = null;
		fields.help_history = withEpisode(kept.history, kept.help, now);
	}
	if (isTerminal(ask.to) && ask.diagnostics) {
		fields.diagnostics = storedDiagnostics(ask.diagnostics, now, await uploaded(room, state, ask.diagnostics.screenshot));
	} else if (ask.to === "failed" && kept.help) {
		fields.diagnostics = diagnosticsFromHelp(kept.help, now);
	}
	return fields;
}

/**
 * Arms the help timer when the bot asks for help of a kind that times out (not again while it is
 * set: asking again while stuck does not re-arm it), and clears it on the way out of
 * `needs_help` or when the request is of a kind that does not time out. Also called when the bot
 * asks again while in `needs_help` (`before` is then `needs_help` too), since its kind may change.
 */
export async function helpTimerAfter(room: HelpHost, before: MeetingState, after: MeetingState, help?: HelpReport): Promise<void> {
	if (after.status === "needs_help" && helpTimesOut((help ?? UNDESCRIBED).kind)) {
		if ((await room.timers.due("help")) === undefined)
			await room.timers.set("help", Date.now() + setting(room.env, "BOT_HELP_TIMEOUT_S") * 1000);
	} else if (before.status === "needs_help" || after.status === "needs_help") {
		await room.timers.clear("help");
	}
}

/** The help timer: a meeting still in `needs_help` fails `help_timeout`, and its bot is told to leave first. */
export async function helpTimedOut(room: HelpHost): Promise<void> {
	const state = await room.state();
	if (state?.machine.status !== "needs_help") return;
	const { help } = await keptHelp(room, state.meetingId);
	if (help && !helpTimesOut(help.kind)) return;
	await room.sendCommand({ action: "leave" });
	await room.applyMove({
		to: "failed",
		actor: "system",
		failure_cause: "help_timeout",
		reason: `the bot asked for help and was still stuck ${setting(room.env, "BOT_HELP_TIMEOUT_S")} s later`,
	});
}

/** A screenshot the bot cites, if its attempt really uploaded it (else the link would lead nowhere). */
async function uploaded(room: HelpHost, state: RoomState, name: string | null): Promise<ScreenshotRef | null> {
	if (!name) return null;
	const ref: ScreenshotRef = { attempt: state.attempt, name };
	return (await room.env.RECORDINGS.head(screenshotKey(state.userId, state.meetingId, ref))) ? ref : null;
}

/** The help request the meeting holds now, and its history (the room is the only writer of both). */
async function keptHelp(room: HelpHost, meetingId: number): Promise<{ help: StoredHelp | null; history: HelpEpisode[] }> {
	const kept = await readMeetingData(room.env, meetingId, ["help", "help_history"]);
	const help = kept?.help;
	const history = kept?.help_history;
	return {
		help: help && typeof help === "object" && !Array.isArray(help) ? (help as StoredHelp) : null,
		history: Array.isArray(history) ? (history as HelpEpisode[]) : [],
	};
}
