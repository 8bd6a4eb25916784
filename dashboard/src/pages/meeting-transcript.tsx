import { NotFoundError, type ResponseOf } from "@meetbot/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import { liveFeed } from "../live";
import { attachmentName, TRANSCRIPT_DOWNLOADS, type TranscriptFormat } from "../transcript-format";
import { applyBundle, fromSegments, orderedLines, type TranscriptBundle, type TranscriptState } from "../transcript-model";
import type { Meeting, Platform } from "../types";
import { Button, ErrorBanner, TextField, TranscriptView } from "../ui";

/** A meeting's link as the transcript routes and the live feed name it. */
export interface MeetingLink {
	platform: Platform;
	native_id: string;
}

/**
 * The live transcript: GET /transcripts/{platform}/{native} once, then the `/ws` transcript
 * bundles of this meeting applied on top (transcript-model.ts). Frames that arrive before the
 * GET answers wait for it, and the transcript is read again once the feed has confirmed the
 * subscription and after each reconnect (frames sent meanwhile are not replayed). Also the
 * downloads (the API's exports, fetched at the click) and the share link.
 */
export function TranscriptPanel(props: { meeting: Meeting; link: MeetingLink; poll: boolean }) {
	const { meeting } = props;
	const { platform, native_id: native } = props.link;
	const [state, setState] = useState<TranscriptState | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [otherMeeting, setOtherMeeting] = useState<number | null>(null);
	const early = useRef<TranscriptBundle[]>([]);
	const loaded = useRef(false);
	/** A re-read was asked for while one was running: run another once it ends. */
	const stale = useRef(false);
	const reload = useRef<() => void>(() => undefined);

	useEffect(() => {
		let cancelled = false;
		async function load() {
			loaded.current = false;
			try {
				const found = await api.transcripts.get(platform, native);
				if (cancelled) return;
				if (found.id !== meeting.id) {
					// The route answers for the newest started meeting on the link, which is not this one.
					setOtherMeeting(found.id);
					setState(fromSegments([]));
				} else {
					setError(null);
					setState(early.current.reduce(applyBundle, fromSegments(found.segments)));
				}
			} catch (err) {
				if (cancelled) return;
				// No started meeting on the link yet: the transcript starts empty and fills live.
				if (err instanceof NotFoundError) setState(early.current.reduce(applyBundle, fromSegments([])));
				else setError(err);
			}
			early.current = [];
			loaded.current = true;
			if (stale.current) {
				stale.current = false;
				void load();
			}
		}
		reload.current = () => {
			if (loaded.current) void load();
			else stale.current = true;
		};
		void load();
		// Bundles that arrive while a read runs wait for it and are applied on top of its answer.
		// Once the subscription is in effect (and after each reconnect) the transcript is read
		// again, so a segment sent before the feed watched this meeting is not lost.
		const stopWatch = liveFeed.watch(
			[{ platform, native_id: native }],
			(frame) => {
				if (frame.type !== "transcript" || frame.meeting?.id !== meeting.id) return;
				const bundle: TranscriptBundle = {
					speaker: typeof frame.speaker === "string" ? frame.speaker : "",
					confirmed: Array.isArray(frame.confirmed) ? frame.confirmed : [],
					pending: Array.isArray(frame.pending) ? frame.pending : [],
				};
				if (!loaded.current) early.current.push(bundle);
				else setState((current) => applyBundle(current ?? fromSegments([]), bundle));
			},
			() => reload.current(),
		);
		return () => {
			cancelled = true;
			stopWatch();
		};
	}, [platform, native, meeting.id]);

	// While the feed is down, the transcript is read again every 5 s.
	useEffect(() => {
		if (!props.poll) return;
		const timer = setInterval(() => reload.current(), 5000);
		return () => clearInterval(timer);
	}, [props.poll]);

	const lines = state ? orderedLines(state) : [];
	const [saving, setSaving] = useState<TranscriptFormat | null>(null);
	const [downloadError, setDownloadError] = useState<unknown>(null);

	async function save(format: TranscriptFormat) {
		setSaving(format);
		setDownloadError(null);
		try {
			await downloadExport(props.link, format);
		} catch (err) {
			setDownloadError(err);
		} finally {
			setSaving(null);
		}
	}

	return (
		<section aria-labelledby="transcript-heading" class="panel">
			<h2 id="transcript-heading">Transcript</h2>
			<ErrorBanner error={error} />
			{otherMeeting ? (
				<p>
					The transcript of this link belongs to another meeting. <a href={`#/meetings/${otherMeeting}`}>Open that meeting</a>
				</p>
			) : (
				<>
					{state ? (
						<TranscriptView lines={lines} label="Live transcript" empty="Nothing said yet." />
					) : (
						<p class="muted">Loading the transcript…</p>
					)}
					<fieldset class="actions downloads">
						<legend>Download the transcript</legend>
						{TRANSCRIPT_DOWNLOADS.map((d) => (
							<Button key={d.format} onClick={() => void save(d.format)} busy={saving === d.format} disabled={!state || saving !== null}>
								{d.label}
							</Button>
						))}
					</fieldset>
					<ErrorBanner error={downloadError} />
					<SharePanel link={props.link} />
				</>
			)}
		</section>
	);
}

/**
 * Fetches the export now (the key in the header, as every call) and saves it under the name
 * the API gave, through a temporary object URL.
 */
async function downloadExport(link: MeetingLink, format: TranscriptFormat) {
	const res = await api.transcripts.exportFile(link.platform, link.native_id, format);
	const name = attachmentName(res.headers.get("content-disposition"), `transcript.${format}`);
	const url = URL.createObjectURL(await res.blob());
	const a = document.createElement("a");
	a.href = url;
	a.download = name;
	document.body.append(a);
	a.click();
	a.remove();
	setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

type Share = ResponseOf<"/transcripts/{platform}/{native_meeting_id}/share", "post">;

const SHARE_TTLS: [string, string][] = [
	["900", "15 minutes"],
	["86400", "1 day"],
	["604800", "7 days"],
];

/** POST .../share: a public, expiring link to the transcript as text. */
function SharePanel(props: { link: MeetingLink }) {
	const [ttl, setTtl] = useState("900");
	const [share, setShare] = useState<Share | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);

	async function create(event: Event) {
		event.preventDefault();
		setBusy(true);
		setError(null);
		try {
			setShare(await api.transcripts.share(props.link.platform, props.link.native_id, { ttl_seconds: Number(ttl) }));
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<form class="share" onSubmit={create} aria-label="Share the transcript">
			<div class="form-row">
				<div class="field">
					<label for="share-ttl">Share link lasts</label>
					<select id="share-ttl" value={ttl} onChange={(e) => setTtl((e.currentTarget as HTMLSelectElement).value)}>
						{SHARE_TTLS.map(([value, label]) => (
							<option key={value} value={value}>
								{label}
							</option>
						))}
					</select>
				</div>
			</div>
			<div class="actions">
				<Button type="submit" busy={busy}>
					Create share link
				</Button>
			</div>
			<ErrorBanner error={error} />
			{share ? (
				<div role="status">
					<TextField
						label="Share link"
						value={share.url}
						onValue={() => undefined}
						readOnly
						hint={`Anyone with it can read the transcript until ${new Date(share.expires_at).toLocaleString()}.`}
					/>
				</div>
			) : null}
		</form>
	);
}
