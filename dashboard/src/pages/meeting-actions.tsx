import { useState } from "preact/hooks";
import { isPlatform } from "../../../src/platforms/index.ts";
import { api } from "../api";
import type { Meeting, Platform } from "../types";
import { Button, ErrorBanner, Notice, SelectField, TextField } from "../ui";
import { ChatLog, useChatLog } from "./meeting-chat";

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

/** The chat log (useChatLog) and a line to send. */
function ChatPanel(props: { meeting: Meeting; poll: boolean }) {
	const { meeting } = props;
	const chat = useChatLog(meeting, props.poll);
	const [text, setText] = useState("");
	const command = useCommand();

	return (
		<form
			aria-labelledby="chat-heading"
			onSubmit={async (e) => {
				e.preventDefault();
				if (await command.run(() => api.bots.sendChat(...botOf(meeting), { text }))) setText("");
			}}
		>
			<h3 id="chat-heading">Chat</h3>
			<ChatLog lines={chat.lines} error={chat.error} />
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
