import { useState } from "preact/hooks";
import { PLATFORM_CHOICES } from "../../../src/platforms/index.ts";
import { api } from "../api";
import { meetingTitle } from "../meeting-words";
import { RECORDING_KINDS, type RecordingKind, sendBotBody } from "../send-bot-request";
import type { Meeting, Platform } from "../types";
import { Button, CheckboxField, ErrorBanner, SelectField, TextField } from "../ui";

const PLATFORMS: [string, string][] = [
	["", "Read it from the link"],
	...PLATFORM_CHOICES.map(([code, name]): [string, string] => [code, name]),
];

/** "Send a bot" from a pasted meeting link: POST /bots with name, language and recording. */
export function SendBotForm(props: { onSent: (meeting: Meeting) => void }) {
	const [link, setLink] = useState("");
	const [platform, setPlatform] = useState<Platform | "">("");
	const [botName, setBotName] = useState("");
	const [language, setLanguage] = useState("");
	const [recording, setRecording] = useState(false);
	const [recordingKind, setRecordingKind] = useState<RecordingKind>("video-720p");
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const [sent, setSent] = useState<Meeting | null>(null);

	async function submit(event: Event) {
		event.preventDefault();
		setSent(null);
		const body = sendBotBody({ link, platform, botName, language, recording, recordingKind });
		if ("problem" in body) return setError(new Error(body.problem));
		setBusy(true);
		setError(null);
		try {
			const meeting = await api.bots.send(body);
			setSent(meeting);
			setLink("");
			props.onSent(meeting);
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<section aria-labelledby="send-bot-heading" class="panel">
			<h2 id="send-bot-heading">Send a bot</h2>
			<form onSubmit={submit} noValidate>
				<TextField
					label="Meeting link"
					name="meeting_url"
					type="text"
					value={link}
					onValue={setLink}
					required
					placeholder="https://meet.google.com/abc-defg-hij"
					hint="A Google Meet, Zoom or Teams link, or a bare meeting id with its platform below."
				/>
				<div class="form-row">
					<SelectField
						label="Platform"
						name="platform"
						value={platform}
						onValue={(v) => setPlatform(v as Platform | "")}
						options={PLATFORMS}
					/>
					<TextField label="Bot name" name="bot_name" value={botName} onValue={setBotName} maxLength={100} placeholder="Notetaker" />
					<TextField
						label="Language"
						name="language"
						value={language}
						onValue={setLanguage}
						placeholder="detect"
						hint="An ISO 639 code such as en or pt-BR; empty detects it."
					/>
				</div>
				<div class="form-row">
					<CheckboxField label="Record the meeting" name="recording_enabled" checked={recording} onChecked={setRecording} />
					{recording ? (
						<SelectField
							label="What to record"
							name="recording_kind"
							value={recordingKind}
							onValue={(v) => setRecordingKind(v as RecordingKind)}
							options={Object.entries(RECORDING_KINDS)}
						/>
					) : null}
				</div>
				<ErrorBanner error={error} />
				<div class="actions">
					<Button type="submit" variant="primary" busy={busy}>
						Send bot
					</Button>
					<p role="status" class="notice">
						{sent ? (
							<>
								Bot sent to {meetingTitle(sent)}. <a href={`#/meetings/${sent.id}`}>Open the meeting</a>
							</>
						) : null}
					</p>
				</div>
			</form>
		</section>
	);
}
