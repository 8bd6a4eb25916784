/**
 * The `POST /bots` body from the dashboard's "Send a bot" form (docs/api.md#bots). The API
 * needs `platform` with either `meeting_url` or `native_meeting_id`: the platform is read off
 * the pasted link's host (the API parses the link itself and answers 422 for a bad one), or
 * taken from the form when the user pasted a bare meeting id. Pure (send-bot-request.test.ts).
 */

import type { SendBotRequest } from "@meetbot/client";
import { platformOfLink } from "../../src/meetings/meeting-link";
import type { Platform } from "./types";

export interface SendBotForm {
	/** A pasted link, or a bare native meeting id. */
	link: string;
	/** "" = read it off the link. */
	platform: Platform | "";
	botName: string;
	language: string;
	recording: boolean;
	/** What a recording holds (docs/api.md#recording-config); read only when `recording`. */
	recordingKind?: RecordingKind;
}

/** The form's recording choices: video at a size, or the audio alone. */
export const RECORDING_KINDS = {
	"video-720p": "Video and audio, 720p",
	"video-1080p": "Video and audio, 1080p",
	audio: "Audio only",
} as const;
export type RecordingKind = keyof typeof RECORDING_KINDS;

// The link's platform is read as the API reads it (src/meetings/meeting-link.ts).
export { platformOfLink };

/** The body to send, or a sentence saying what the form still needs. */
export function sendBotBody(form: SendBotForm): SendBotRequest | { problem: string } {
	const link = form.link.trim();
	if (!link) return { problem: "Paste a meeting link (Google Meet, Zoom or Teams)." };
	const fromLink = platformOfLink(link);
	const platform = form.platform || fromLink;
	if (!platform)
		return {
			problem: "That is not a Google Meet, Zoom or Teams link. Paste the whole link, or choose the platform for a bare meeting id.",
		};
	const looksLikeLink = fromLink !== null || link.includes("/");
	const body: SendBotRequest = { platform, recording_enabled: form.recording };
	if (form.recording && form.recordingKind) {
		body.recording_config =
			form.recordingKind === "audio"
				? { video: false }
				: { video: true, resolution: form.recordingKind === "video-1080p" ? "1080p" : "720p" };
	}
	if (looksLikeLink) body.meeting_url = link;
	else body.native_meeting_id = link;
	const botName = form.botName.trim();
	if (botName) body.bot_name = botName;
	const language = form.language.trim();
	if (language) body.language = language;
	return body;
}
