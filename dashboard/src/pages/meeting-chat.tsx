import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { liveFeed } from "../live";
import { isLive } from "../meeting-words";
import type { ChatLine, Meeting } from "../types";
import { ErrorBanner, when } from "../ui";

/**
 * The meeting chat (docs/api.md#meeting-chat): read by meeting id, so it is there after the
 * meeting ends and for a workspace member as for the owner; while the meeting is live,
 * `chat_message` frames add lines as they come, and the log is read again every 5 s while the
 * feed is down. Sender and text are what people typed: JSX text only.
 */
export function useChatLog(meeting: Meeting, poll: boolean): { lines: ChatLine[]; error: unknown } {
	const [lines, setLines] = useState<ChatLine[]>([]);
	const [error, setError] = useState<unknown>(null);
	const seen = useRef(new Set<string>());
	const live = isLive(meeting.status);

	useEffect(() => {
		const keyOf = (line: ChatLine) => `${line.sender}\n${line.text}\n${line.timestamp}`;
		const add = (incoming: ChatLine[]) => {
			const fresh = incoming.filter((line) => {
				const key = keyOf(line);
				if (seen.current.has(key)) return false;
				seen.current.add(key);
				return true;
			});
			if (fresh.length) setLines((current) => [...current, ...fresh]);
		};
		const load = async () => {
			try {
				const { messages } = await api.meetings.chat(meeting.id);
				setError(null);
				add(messages);
			} catch (err) {
				setError(err);
			}
		};
		void load();
		if (!live || !meeting.native_meeting_id) return;
		// Lines already shown are not repeated, whichever way they came.
		const timer = poll ? setInterval(load, 5000) : undefined;
		const stop = liveFeed.watch(
			[{ platform: meeting.platform, native_id: meeting.native_meeting_id }],
			(frame) => {
				if (frame.type !== "chat_message" || frame.meeting?.id !== meeting.id) return;
				add([
					{
						sender: String(frame.sender ?? ""),
						text: String(frame.text ?? ""),
						timestamp: frame.timestamp,
						is_from_bot: frame.is_from_bot === true,
					},
				]);
			},
			// Read the log again once the feed watches the meeting.
			() => void load(),
		);
		return () => {
			clearInterval(timer);
			stop();
		};
	}, [meeting.id, live, poll]);

	return { lines, error };
}

/** The chat lines, oldest first. */
export function ChatLog(props: { lines: ChatLine[]; error: unknown }) {
	return (
		<>
			<ErrorBanner error={props.error} label="Chat log" />
			{/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1) */}
			<ol class="chat-log" aria-label="Chat messages" aria-live="polite" tabIndex={0}>
				{props.lines.length === 0 ? <li class="muted">No chat messages yet.</li> : null}
				{props.lines.map((line, i) => (
					<li key={`${i}-${line.timestamp}`} data-from-bot={line.is_from_bot ? "true" : "false"}>
						<strong class="chat-sender">{line.sender || "Unknown"}</strong>
						{line.is_from_bot ? <span class="muted"> (bot)</span> : null} <span class="muted">{chatTime(line.timestamp)}</span>
						<div class="chat-text">{line.text}</div>
					</li>
				))}
			</ol>
		</>
	);
}

/** The chat log on its own, for a meeting the reader cannot act in: an ended one, or someone else's live one. */
export function ChatLogPanel(props: { meeting: Meeting; poll: boolean }) {
	const chat = useChatLog(props.meeting, props.poll);
	return (
		<section aria-labelledby="chat-log-heading" class="panel" data-testid="chat-log">
			<h2 id="chat-log-heading">Chat</h2>
			<ChatLog lines={chat.lines} error={chat.error} />
		</section>
	);
}

/** A chat line's time: milliseconds since the epoch, or seconds from a bot that sends them. */
function chatTime(timestamp: string | number | null): string {
	if (timestamp === null || timestamp === "") return "";
	if (typeof timestamp === "number") return when(new Date(timestamp > 1e12 ? timestamp : timestamp * 1000).toISOString());
	return when(timestamp);
}
