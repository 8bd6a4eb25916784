/**
 * Transcript exports (`GET /transcripts/{platform}/{native_meeting_id}?format=`): one table of
 * the formats, each with its file extension, content type and renderer, and the download's file
 * name. Every export is of the meeting as it is at the request (status, start and end times), so
 * a download never carries a stale head; a rendering is reused only while neither the head, a
 * segment, a participant's stays nor the chat has changed (transcript-cache.ts). SRT, WebVTT and
 * text hold the confirmed segments only (a draft is a guess the bot may still replace); JSON
 * holds every segment with its `completed` flag, as the transcript route answers it, plus every
 * speaker's talk time and the chat; text adds who was there and the chat as sections; the
 * subtitles stay cues only (docs/api.md#exports).
 */
import { z } from "@hono/zod-openapi";
import type { Env } from "../env";
import { notFound } from "../errors";
import { meetingLabel } from "./meeting-label";
import { chatMarkOf, chatOf, peopleOf } from "./meeting-people";
import { type meetingTranscript, type Reader, segmentsOf, transcriptHeadOf, transcriptMeeting } from "./meeting-queries";
import { type ChatText, chatSection, participantsSection } from "./people-text";
import { attributeTalk, type SpeakerTalk, talkBySpeaker } from "./talk-time";
import { versionedRendering } from "./transcript-cache";
import { transcriptSrt, transcriptVtt } from "./transcript-export-cues";
import { transcriptText } from "./transcript-text";

export const EXPORT_FORMATS = ["srt", "vtt", "txt", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const ExportFormatParam = z.enum(EXPORT_FORMATS, {
	error: () => `format must be one of: ${EXPORT_FORMATS.join(", ")}`,
});

/**
 * What an export is made from: the transcript route's answer (with its participants), the
 * meeting's title and when it was made, every speaker's talk time and the chat log.
 */
export type ExportedTranscript = Awaited<ReturnType<typeof meetingTranscript>> & {
	title: string | null;
	exported_at: string;
	speakers: SpeakerTalk[];
	chat: ChatText[];
};

/** The txt export: the transcript text with who was there after its header and the chat at its end. */
function exportText(t: ExportedTranscript): string {
	const totalTalk = t.speakers.reduce((sum, s) => sum + s.talk_time_s, 0);
	return transcriptText(t, t.segments, { afterHead: participantsSection(t.participants, totalTalk), atEnd: chatSection(t.chat) });
}

interface ExportFormatSpec {
	contentType: string;
	render: (t: ExportedTranscript) => string;
}

export const EXPORTS: Record<ExportFormat, ExportFormatSpec> = {
	srt: { contentType: "application/x-subrip; charset=utf-8", render: (t) => transcriptSrt(t.segments) },
	vtt: { contentType: "text/vtt; charset=utf-8", render: (t) => transcriptVtt(t.segments) },
	txt: { contentType: "text/plain; charset=utf-8", render: exportText },
	json: { contentType: "application/json; charset=utf-8", render: (t) => `${JSON.stringify(t, null, 2)}\n` },
};

// Characters a file name must never carry: controls, quotes, path separators and the ones file systems refuse.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\/:*?<>|;%]+/g;
const QUOTES = /["'`]/g;

/** The name without the unsafe characters, in one line, bounded; may be non-ASCII. */
function cleanName(name: string): string {
	return [...name.replace(QUOTES, "").replace(UNSAFE_IN_NAME, " ").replace(/\s+/g, " ").trim()].slice(0, 100).join("").trim();
}

/** ASCII letters, digits, `.`, `_` and `-` only (accents dropped), no `..`, without leading or trailing dots. */
function asciiName(name: string): string {
	return name
		.normalize("NFKD")
		.replace(/\p{M}+/gu, "")
		.replace(QUOTES, "")
		.replace(/[^A-Za-z0-9._-]+/g, "_")
		.replace(/\.{2,}/g, ".")
		.replace(/^[._-]+|[._-]+$/g, "")
		.slice(0, 100);
}

/** The download's file name: `transcript-<title, else platform and code>.<format>`, in ASCII, and in UTF-8 when that differs. */
export function exportFileName(
	meeting: { id: number; platform: string; native_meeting_id: string | null; title: string | null },
	format: ExportFormat,
): { ascii: string; utf8: string } {
	const label = meetingLabel({ platform: meeting.platform, native_meeting_id: meeting.native_meeting_id, data: { title: meeting.title } });
	const ascii = asciiName(label) || asciiName(`${meeting.platform}-${meeting.native_meeting_id ?? ""}`) || `meeting-${meeting.id}`;
	const utf8 = cleanName(label) || ascii;
	return { ascii: `transcript-${ascii}.${format}`, utf8: `transcript-${utf8}.${format}` };
}

/** RFC 5987 value characters: what encodeURIComponent leaves alone, less `'()*!`. */
const rfc5987 = (value: string) => encodeURIComponent(value).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** `attachment; filename="<ascii>"`, plus `filename*=UTF-8''…` when the name has more than ASCII can say. */
export function contentDisposition(name: { ascii: string; utf8: string }): string {
	const plain = `attachment; filename="${name.ascii}"`;
	return /^[\x20-\x7e]*$/.test(name.utf8) ? plain : `${plain}; filename*=UTF-8''${rfc5987(name.utf8)}`;
}

/**
 * The export of the newest started meeting on a link the reader may read; 404 otherwise. It is
 * rendered once per version of the transcript (transcript-cache.ts): `body` is null when
 * `ifNoneMatch` already names that version (304).
 */
export async function transcriptExport(
	env: Env,
	reader: Reader,
	link: { platform: string; native_meeting_id: string },
	format: ExportFormat,
	ifNoneMatch?: string | null,
) {
	const meeting = await transcriptMeeting(env, reader, link);
	const head = await transcriptHeadOf(env, meeting.id);
	if (!head) throw notFound("Meeting not found");
	const described = { ...meeting, title: head.title };
	const spec = EXPORTS[format];
	// Joins, leaves and chat move no segment counter: the version reads them too (the stays are a few rows, the chat its mark).
	const [people, chatMark] = await Promise.all([peopleOf(env, meeting.id), chatMarkOf(env, meeting.id)]);
	const version = { ...described, people, chat: chatMark };
	const { etag, body } = await versionedRendering(env, meeting.id, `export.${format}`, version, ifNoneMatch, async () => {
		const [segments, chat] = await Promise.all([segmentsOf(env, meeting.id), chatOf(env, meeting.id)]);
		const { participants, speakers } = attributeTalk(people, talkBySpeaker(segments));
		return spec.render({ ...meeting, participants, segments, title: head.title, exported_at: new Date().toISOString(), speakers, chat });
	});
	const headers = {
		"content-type": spec.contentType,
		"content-disposition": contentDisposition(exportFileName(described, format)),
		// A private transcript: no cache along the way keeps a copy; a client may still revalidate by ETag.
		"cache-control": "private, no-store",
		etag,
	};
	return { body, headers };
}
