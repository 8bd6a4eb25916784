/**
 * The plain-text export's sections on who was there and what they wrote (docs/api.md#exports):
 * one line per participant (talk time, share of the talk, every stay) and one per chat line.
 * Names and chat are what people typed in the meeting: each is folded to one line (oneLine), so
 * none can forge a line of its own. Pure: no Worker or browser API.
 */
import type { Participant } from "./talk-time";
import { clock, oneLine } from "./transcript-text";

/** A chat line as the export reads it. */
export interface ChatText {
	sender: string;
	text: string;
	timestamp: number;
	is_from_bot: boolean;
}

/** A chat timestamp (ms since the epoch, or seconds from bots that send them) as ISO 8601; `-` when it is none. */
export function chatInstant(timestamp: number): string {
	const ms = timestamp > 1e12 ? timestamp : timestamp * 1000;
	return Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : "-";
}

/** `joined … to left …` for each stay; an end the bot never saw is the end of the meeting for it. */
function stays(p: Participant): string {
	if (p.intervals.length === 0) return "no join or leave seen";
	return p.intervals.map((s) => `${s.joined_at ?? "before the bot joined"} to ${s.left_at ?? "the end"}`).join(", ");
}

/** `Participants:` then one `- Name: talked hh:mm:ss (n%); stays` line each; no lines at all without participants. */
export function participantsSection(participants: Participant[], totalTalkSeconds: number): string[] {
	if (participants.length === 0) return [];
	const lines = participants.map((p) => {
		const name = oneLine(p.name) || "Unknown";
		if (p.talk_time_s === null) return `- ${name}: talk time unknown (another participant has the same name); ${stays(p)}`;
		const share = totalTalkSeconds > 0 ? ` (${Math.round((p.talk_time_s / totalTalkSeconds) * 100)}%)` : "";
		return `- ${name}: talked ${clock(p.talk_time_s)}${share}; ${stays(p)}`;
	});
	return ["Participants:", ...lines, ""];
}

/** A blank line, `Chat:`, then one `[ISO time] Sender: text` line each (`(bot)` after the bot's own); nothing without chat. */
export function chatSection(chat: ChatText[]): string[] {
	if (chat.length === 0) return [];
	const lines = chat.map(
		(m) => `[${chatInstant(m.timestamp)}] ${oneLine(m.sender) || "Unknown"}${m.is_from_bot ? " (bot)" : ""}: ${oneLine(m.text)}`,
	);
	return ["", "Chat:", ...lines];
}
