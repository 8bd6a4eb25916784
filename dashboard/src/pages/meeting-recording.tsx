import { useEffect, useRef, useState } from "preact/hooks";
import { abortable } from "../api";
import { httpUrl, isLive } from "../meeting-words";
import type { MediaFile, Meeting } from "../types";
import { Button, bytes, clock, ErrorBanner, useResource, when } from "../ui";
import { recordingPlanWords, recordingStatusWords } from "../words";

/**
 * The meeting's recordings (GET /recordings?meeting_id=), each media file played from its
 * signed download URL: the player fetches that URL itself with Range requests, so seeking
 * works, and the API key never goes into a URL. A recording still in progress plays what
 * arrived so far (its bot ships a part every few seconds).
 */
export function RecordingPanel(props: { meeting: Meeting }) {
	const { meeting } = props;
	// The bot uploads when it leaves, so the list is read again when the status changes.
	const recordings = useResource(
		(signal) =>
			abortable(signal)
				.recordings.list({ meeting_id: meeting.id })
				.then((r) => r.recordings),
		`${meeting.id}:${meeting.status}`,
	);
	const list = recordings.data ?? [];
	// The upload can land after the meeting has ended: a meeting that ended in the last five
	// minutes without a recording is asked again every 3 s, for two minutes at most.
	const ended =
		(meeting.status === "completed" || meeting.status === "failed") &&
		meeting.end_time !== null &&
		Date.now() - Date.parse(meeting.end_time) < 300_000;
	// A recording still coming in (its bot ships parts while in the call, and completes it as it
	// leaves) is asked again too, so the players show the finished file without a reload.
	const waiting = (ended && recordings.data !== null && list.length === 0) || list.some((r) => r.status === "in_progress");
	const reload = useRef(recordings.reload);
	reload.current = recordings.reload;
	useEffect(() => {
		if (!waiting) return;
		let asked = 0;
		const timer = setInterval(() => {
			if (++asked > 40) clearInterval(timer);
			else reload.current();
		}, 3000);
		return () => clearInterval(timer);
	}, [waiting, meeting.status]);
	return (
		<section aria-labelledby="recording-heading" class="panel">
			<h2 id="recording-heading">Recording</h2>
			<ErrorBanner error={recordings.error} />
			<RecordingState meeting={meeting} files={recordings.data === null ? null : list.length} />
			{list.map((recording) => (
				<div key={recording.id} class="recording">
					<p class="muted">
						Recording {recording.id}, {recordingStatusWords(recording.status)}, {when(recording.created_at)}
					</p>
					{recording.media_files.map((media) => (
						// A new player once the file is complete: its link then serves the finished file.
						<MediaPlayer key={`${media.id}:${recording.status}`} recordingId={recording.id} media={media} />
					))}
				</div>
			))}
		</section>
	);
}

/**
 * Whether the meeting records and what, before its files are listed: a live bot sent with
 * recording on says so at once (its first part lands a few seconds after it is let in), a bot
 * sent without it says it records nothing.
 */
function RecordingState(props: { meeting: Meeting; files: number | null }) {
	const { meeting, files } = props;
	const plan = meeting.recording_plan;
	if (!plan) {
		return files === 0 ? <p class="muted">No recording: this bot was sent with recording off.</p> : null;
	}
	const planned = `Recording (${recordingPlanWords(plan)})`;
	if (isLive(meeting.status)) {
		return (
			<p class="notice-box" role="status" data-testid="recording-plan">
				{planned}
				{files === 0 ? ": its files appear here once the bot is in the call." : ""}
			</p>
		);
	}
	if (files === 0)
		return (
			<p class="muted" data-testid="recording-plan">
				{planned}: no files arrived yet.
			</p>
		);
	return (
		<p class="muted" data-testid="recording-plan">
			{planned}
		</p>
	);
}

/** How a media file reads beside its player: "Meeting video (webm, 1280×720, 3:12, 2.4 MB)". */
export function mediaLabel(media: MediaFile): string {
	const size = media.metadata.width && media.metadata.height ? `${media.metadata.width}×${media.metadata.height}` : null;
	const parts = [media.format, size, media.duration_seconds ? clock(media.duration_seconds) : null, bytes(media.file_size_bytes)];
	return `Meeting ${media.type === "video" ? "video" : "audio"} (${parts.filter(Boolean).join(", ")})`;
}

function MediaPlayer(props: { recordingId: number; media: MediaFile }) {
	const { recordingId, media } = props;
	// A signed link lasts RECORDING_DOWNLOAD_TTL_S; "Reload player" asks for a fresh one.
	const [round, setRound] = useState(0);
	const link = useResource(
		(signal) => abortable(signal).recordings.downloadLink(recordingId, media.id),
		`${recordingId}:${media.id}:${round}`,
	);
	const url = httpUrl(link.data?.download_url);
	const label = mediaLabel(media);
	const reload = () => setRound((n) => n + 1);
	return (
		<div class="media">
			<ErrorBanner error={link.error} />
			{url ? (
				<>
					{media.type === "video" ? (
						// biome-ignore lint/a11y/useMediaCaption: the meeting's transcript beside it is the text of this video
						<video controls preload="metadata" src={url} aria-label={label} onError={reload} />
					) : (
						// biome-ignore lint/a11y/useMediaCaption: the meeting's transcript beside it is the text of this audio
						<audio controls preload="metadata" src={url} aria-label={label} onError={reload} />
					)}
					<div class="actions">
						<span>{label}</span>
						<a href={url} download={link.data?.filename}>
							Download the {media.type === "video" ? "video" : "audio"}
						</a>
						<Button onClick={reload}>Reload player</Button>
					</div>
				</>
			) : link.loading ? (
				<p class="muted">Preparing the player…</p>
			) : null}
		</div>
	);
}
