import { useEffect, useRef, useState } from "preact/hooks";
import { isPlatform } from "../../../src/platforms/index.ts";
import { api } from "../api";
import { liveFeed } from "../live";
import type { ChatLine, Meeting, Platform } from "../types";
import { Button, ErrorBanner, Notice, SelectField, TextField, when } from "../ui";

/** The meeting as the bot's routes name it (`/bots/{platform}/{native}`): the panel shows only for a live meeting with a link. */
function botOf(meeting: Meeting): [Platform, string] {
	if (!isPlatform(meeting.platform) || !meeting.native_meeting_id) throw new Error("This meeting has no link.");
	return [meeting.platform, meeting.native_meeting_id];
}

/** Runs one interactive command and keeps its outcome: the API's `message`, or its detail. */
function useCommand() {
	const [error, setError] = useState<unknown>(null);
	const [notice, setNotice] = useState<string | null>(null);
	const [busy, setBusy] = useState(false);
	async function run(command: () => Promise<{ message?: string } | undefined>): Promise<boolean> {
		setBusy(true);
		setError(null);
		setNotice(null);
		try {
			const answer = await command();
			setNotice(answer?.message ?? "Done");
			return true;
		} catch (err) {
			setError(err);
			return false;
		} finally {
			setBusy(false);
		}
	}
	return { error, notice, busy, run };
}

const VOICES: [string, string][] = ["alloy", "echo", "fable", "onyx", "nova", "shimmer"].map((v) => [v, v]);
const SCREEN_TYPES: [string, string][] = [
	["image", "Image (URL)"],
	["video", "Video (URL)"],
	["url", "Web page (URL)"],
	["html", "HTML"],
];

/** The forms that act in a live meeting: speak, chat (with its log), screen. */
export function InteractivePanel(props: { meeting: Meeting; poll: boolean }) {
	return (
		<section aria-labelledby="interact-heading" class="panel">
			<h2 id="interact-heading">Act in the meeting</h2>
			<SpeakForm meeting={props.meeting} />
			<ChatPanel meeting={props.meeting} poll={props.poll} />
			<ScreenForm meeting={props.meeting} />
		</section>
	);
}

function SpeakForm(props: { meeting: Meeting }) {
	const [text, setText] = useState("");
	const [voice, setVoice] = useState("alloy");
	const command = useCommand();
	return (
		<form
			aria-labelledby="speak-heading"
			onSubmit={async (e) => {
				e.preventDefault();
				if (await command.run(() => api.bots.speak(...botOf(props.meeting), { text, voice }))) setText("");
			}}
		>
			<h3 id="speak-heading">Speak</h3>
			<TextField label="Text to speak" name="speak_text" value={text} onValue={setText} multiline maxLength={4096} />
			<SelectField label="Voice" name="voice" value={voice} onValue={setVoice} options={VOICES} />
			<div class="actions">
				<Button type="submit" variant="primary" busy={command.busy}>
					Speak
				</Button>
				<Button onClick={() => void command.run(() => api.bots.stopSpeaking(...botOf(props.meeting)))}>Stop speaking</Button>
			</div>
			<ErrorBanner error={command.error} />
			<Notice text={command.notice} />
		</form>
	);
}

function ScreenForm(props: { meeting: Meeting }) {
	const [type, setType] = useState("image");
	const [content, setContent] = useState("");
	const command = useCommand();
	return (
		<form
			aria-labelledby="screen-heading"
			onSubmit={(e) => {
				e.preventDefault();
				void command.run(() =>
					api.bots.shareScreen(...botOf(props.meeting), type === "html" ? { type, html: content } : { type, url: content }),
				);
			}}
		>
			<h3 id="screen-heading">Show on screen</h3>
			<SelectField label="Content type" name="screen_type" value={type} onValue={setType} options={SCREEN_TYPES} />
			<TextField
				label={type === "html" ? "HTML to show" : "Content URL"}
				name="screen_content"
				value={content}
				onValue={setContent}
				multiline={type === "html"}
				type={type === "html" ? undefined : "url"}
			/>
			<div class="actions">
				<Button type="submit" variant="primary" busy={command.busy}>
					Show
				</Button>
				<Button onClick={() => void command.run(() => api.bots.stopScreen(...botOf(props.meeting)))}>Stop showing</Button>
			</div>
			<ErrorBanner error={command.error} />
			<Notice text={command.notice} />
		</form>
	);
}

/** The chat log (GET .../chat, then `chat_message` frames) and a line to send. */
function ChatPanel(props: { meeting: Meeting; poll: boolean }) {
	const { meeting } = props;
	const [lines, setLines] = useState<ChatLine[]>([]);
	const [loadError, setLoadError] = useState<unknown>(null);
	const [text, setText] = useState("");
	const command = useCommand();
	const seen = useRef(new Set<string>());

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
				const { messages } = await api.bots.chat(...botOf(meeting));
				setLoadError(null);
				add(messages);
			} catch (err) {
				setLoadError(err);
			}
		};
		void load();
		// While the feed is down, the log is read again every 5 s; lines already shown are not repeated.
		const timer = props.poll ? setInterval(load, 5000) : undefined;
		const stop = liveFeed.watch(
			[{ platform: meeting.platform, native_id: meeting.native_meeting_id ?? "" }],
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
			// Read the log again once the feed watches the meeting (lines shown are not repeated).
			() => void load(),
		);
		return () => {
			clearInterval(timer);
			stop();
		};
	}, [meeting.id, props.poll]);

	return (
		<form
			aria-labelledby="chat-heading"
			onSubmit={async (e) => {
				e.preventDefault();
				if (await command.run(() => api.bots.sendChat(...botOf(meeting), { text }))) setText("");
			}}
		>
			<h3 id="chat-heading">Chat</h3>
			<ErrorBanner error={loadError} label="Chat log" />
			{/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1) */}
			<ol class="chat-log" aria-label="Chat messages" aria-live="polite" tabIndex={0}>
				{lines.length === 0 ? <li class="muted">No chat messages yet.</li> : null}
				{lines.map((line, i) => (
					<li key={`${i}-${line.timestamp}`} data-from-bot={line.is_from_bot ? "true" : "false"}>
						<strong class="chat-sender">{line.sender || "Unknown"}</strong>
						{line.is_from_bot ? <span class="muted"> (bot)</span> : null} <span class="muted">{chatTime(line.timestamp)}</span>
						<div class="chat-text">{line.text}</div>
					</li>
				))}
			</ol>
			<TextField label="Chat message" name="chat_text" value={text} onValue={setText} maxLength={4096} />
			<div class="actions">
				<Button type="submit" variant="primary" busy={command.busy}>
					Send to chat
				</Button>
			</div>
			<ErrorBanner error={command.error} />
			<Notice text={command.notice} />
		</form>
	);
}

function chatTime(timestamp: string | number | null): string {
	if (timestamp === null || timestamp === "") return "";
	if (typeof timestamp === "number") return when(new Date(timestamp > 1e12 ? timestamp : timestamp * 1000).toISOString());
	return when(timestamp);
}
