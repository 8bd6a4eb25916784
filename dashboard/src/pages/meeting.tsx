import { useEffect, useRef, useState } from "preact/hooks";
import { isPlatform } from "../../../src/platforms/index.ts";
import { abortable, api } from "../api";
import { type FeedFrame, liveFeed, useFeedState } from "../live";
import { useCanAct } from "../me";
import { httpUrl, isLive, meetingTitle, platformWords } from "../meeting-words";
import { type Placement, placementOf, waitedWords, withPlacementFrame } from "../placement-words";
import { buildTimeline, endingWords, type SeenStatus } from "../timeline";
import type { Meeting } from "../types";
import { Button, ErrorBanner, StatusBadge, useResource, when } from "../ui";
import { statusHint } from "../words";
import { InteractivePanel } from "./meeting-actions";
import { ChatLogPanel } from "./meeting-chat";
import { HelpPanel } from "./meeting-help";
import { PeoplePanel } from "./meeting-people";
import { RecordingPanel } from "./meeting-recording";
import { MeetingSummaryPanel } from "./meeting-summary";
import { TranscriptPanel } from "./meeting-transcript";

/**
 * `#/meetings/<id>`: the meeting's header and stop, its live transcript, who was there (People),
 * status timeline, the interactive forms and chat (the chat log alone when the reader cannot act
 * or the meeting ended), the recording. Everything the meeting produced
 * (names, chat, titles, text) is rendered as JSX text only.
 */
export function MeetingPage(props: { id: string }) {
	const record = useResource((signal) => abortable(signal).meetings.get(Number(props.id)), props.id);
	const meeting = record.data;
	const [seen, setSeen] = useState<SeenStatus[]>([]);
	const [newer, setNewer] = useState<number | null>(null);
	const [participantsRound, setParticipantsRound] = useState(0);
	const canAct = useCanAct();
	const reloadRecord = useRef(record.reload);
	reloadRecord.current = record.reload;

	// Status steps as they happen; a terminal step loads the record again for its reason,
	// end time and recordings.
	const ref =
		meeting?.native_meeting_id && isPlatform(meeting.platform)
			? { platform: meeting.platform, native_id: meeting.native_meeting_id }
			: null;
	useEffect(() => {
		if (!ref || !meeting) return;
		return liveFeed.watch(
			[ref],
			(frame: FeedFrame) => {
				if (frame.meeting?.platform !== ref.platform || frame.meeting.native_id !== ref.native_id) return;
				if (frame.meeting.id !== meeting.id) {
					if (frame.type === "meeting.status" && frame.meeting.id > meeting.id) setNewer(frame.meeting.id);
					return;
				}
				if (frame.type === "meeting.status") {
					const { status, data } = frame.payload;
					if (!status) return;
					record.set((current) => (current ? withPlacementFrame(current, frame) : current));
					// What a waiting meeting waits on is shown beside its status, not as another step.
					if (data?.placement) return;
					setSeen((steps) => [...steps, { status, ts: frame.ts || new Date().toISOString(), reason: data?.reason ?? null }]);
					// A terminal step waits for the record, so the ending shows with its reason and stage at once.
					if (status === "completed" || status === "failed") reloadRecord.current();
					else {
						record.set((current) => (current ? { ...current, status } : current));
						// The record carries what a stuck bot sees (data.help), with a fresh screenshot link.
						if (status === "active" || status === "needs_help") reloadRecord.current();
					}
				} else if (frame.type === "participant.joined" || frame.type === "participant.left") setParticipantsRound((n) => n + 1);
			},
			// Once the feed watches the meeting (and after each reconnect), what the page shows is read
			// again: steps and joins sent before that reached nobody.
			() => {
				reloadRecord.current();
				setParticipantsRound((n) => n + 1);
			},
		);
		// The subscription follows the link and the record id, not each status change.
	}, [ref?.platform, ref?.native_id, meeting?.id]);

	// Without the feed (down, or reconnecting) a live meeting is read again every 5 s instead.
	const feed = useFeedState();
	const polling = feed !== "live" && meeting !== null && isLive(meeting.status);
	useEffect(() => {
		if (!polling) return;
		const timer = setInterval(() => reloadRecord.current(), 5000);
		return () => clearInterval(timer);
	}, [polling]);

	const planned = meeting?.status === "idle" || meeting?.status === "scheduled";
	// One heading element for every state, so the focus the shell puts on it after a route
	// change stays there when the record arrives.
	return (
		<>
			<p>
				<a href="#/meetings">← Meetings</a>
			</p>
			<h1>{meeting ? meetingTitle(meeting) : "Meeting"}</h1>
			{record.error ? <ErrorBanner error={record.error} /> : null}
			{!meeting && !record.error ? <p class="muted">Loading the meeting…</p> : null}
			{meeting ? (
				<>
					<MeetingHeader meeting={meeting} onStopped={record.reload} canAct={canAct} />
					<MeetingSummaryPanel meeting={meeting} />
					{newer ? (
						<p class="notice-box" role="status">
							A newer meeting started on this link. <a href={`#/meetings/${newer}`}>Open the newer meeting</a>
						</p>
					) : null}
					<HelpPanel meeting={meeting} onLinkExpired={record.reload} />
					<div class="grid-2">
						<div>
							{planned ? (
								<PlanPanel meeting={meeting} onSent={record.reload} canAct={canAct} />
							) : ref ? (
								<TranscriptPanel meeting={meeting} link={ref} poll={polling} />
							) : null}
							{ref && canAct && isLive(meeting.status) ? <InteractivePanel meeting={meeting} poll={polling} /> : null}
							<RecordingPanel meeting={meeting} />
						</div>
						<div>
							<TimelinePanel meeting={meeting} seen={seen} />
							<PeoplePanel meeting={meeting} round={participantsRound} poll={polling} />
							{ref && canAct && isLive(meeting.status) ? null : <ChatLogPanel meeting={meeting} poll={polling} />}
						</div>
					</div>
				</>
			) : null}
		</>
	);
}

function MeetingHeader(props: { meeting: Meeting; onStopped: () => void; canAct: boolean }) {
	const { meeting } = props;
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const link = httpUrl(meeting.constructed_meeting_url);

	async function stop() {
		if (!meeting.native_meeting_id || !isPlatform(meeting.platform)) return;
		setBusy(true);
		setError(null);
		try {
			await api.bots.stop(meeting.platform, meeting.native_meeting_id);
			props.onStopped();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	const ending = endingWords(meeting);
	const placement = isLive(meeting.status) ? placementOf(meeting) : null;
	return (
		<div class="meeting-header">
			<dl class="facts">
				<div>
					<dt>Status</dt>
					<dd>
						<StatusBadge status={meeting.status} />
					</dd>
				</div>
				<div>
					<dt>Platform</dt>
					<dd>{platformWords(meeting.platform)}</dd>
				</div>
				<div>
					<dt>Link</dt>
					<dd>
						{link ? (
							<a href={link} rel="noopener noreferrer" target="_blank">
								{link}
							</a>
						) : (
							(meeting.constructed_meeting_url ?? "none")
						)}
					</dd>
				</div>
				{meeting.data?.scheduled_at ? (
					<div>
						<dt>Scheduled</dt>
						<dd>
							{when(meeting.data.scheduled_at)} ({meeting.auto_join ? "joins by itself" : "auto-join off"})
						</dd>
					</div>
				) : null}
				<div>
					<dt>Started</dt>
					<dd>{when(meeting.start_time)}</dd>
				</div>
				<div>
					<dt>Ended</dt>
					<dd>{when(meeting.end_time)}</dd>
				</div>
			</dl>
			{placement ? (
				<PlacementNotice placement={placement} />
			) : statusHint(meeting.status, meeting.data.help?.kind) ? (
				<p class="notice-box">{statusHint(meeting.status, meeting.data.help?.kind)}</p>
			) : null}
			{ending ? (
				<p class={meeting.status === "failed" ? "error-banner" : "notice-box"} data-testid="ending">
					{ending}
				</p>
			) : null}
			{props.canAct && isLive(meeting.status) && meeting.native_meeting_id ? (
				<div class="actions">
					<Button variant="danger" onClick={() => void stop()} busy={busy || meeting.status === "stopping"}>
						{meeting.status === "stopping" ? "Stopping…" : "Stop the bot"}
					</Button>
				</div>
			) : null}
			<ErrorBanner error={error} />
		</div>
	);
}

/** A meeting waiting for a bot host: why, and for how long (ticking here from `since`). */
function PlacementNotice(props: { placement: Placement }) {
	const { placement } = props;
	const [now, setNow] = useState(Date.now());
	useEffect(() => {
		const timer = setInterval(() => setNow(Date.now()), 1000);
		return () => clearInterval(timer);
	}, []);
	return (
		<div class="notice-box placement" role="status" data-testid="placement">
			<p>
				<strong>Waiting for a bot host…</strong> <span data-testid="placement-waited">{waitedWords(placement.since, now)}</span>
				<span class="muted"> (gives up {when(placement.deadline)})</span>
			</p>
			<p data-testid="placement-detail">{placement.detail}</p>
		</div>
	);
}

/** A plan has no transcript yet: it starts when a bot joins, by auto-join or "Send a bot now". */
function PlanPanel(props: { meeting: Meeting; onSent: () => void; canAct: boolean }) {
	const { meeting } = props;
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	async function sendNow() {
		if (!meeting.native_meeting_id || !isPlatform(meeting.platform)) return;
		setBusy(true);
		setError(null);
		try {
			// POST /bots on the plan's link claims the plan in place (same id, title and schedule).
			await api.bots.send({ platform: meeting.platform, native_meeting_id: meeting.native_meeting_id });
			props.onSent();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}
	return (
		<section aria-labelledby="plan-heading" class="panel">
			<h2 id="plan-heading">Transcript</h2>
			{props.canAct && meeting.native_meeting_id && isPlatform(meeting.platform) ? (
				<>
					<p>This is a plan: its transcript starts when a bot joins.</p>
					<div class="actions">
						<Button variant="primary" onClick={() => void sendNow()} busy={busy}>
							Send a bot now
						</Button>
					</div>
				</>
			) : (
				<p>This plan has no meeting link yet, so no bot can join it.</p>
			)}
			<ErrorBanner error={error} />
		</section>
	);
}

function TimelinePanel(props: { meeting: Meeting; seen: SeenStatus[] }) {
	const steps = buildTimeline(props.meeting, props.seen);
	return (
		<section aria-labelledby="timeline-heading" class="panel">
			<h2 id="timeline-heading">Status timeline</h2>
			<ol class="timeline">
				{steps.map((step, i) => (
					<li key={`${step.status}-${i}`} data-status={step.status}>
						<StatusBadge status={step.status} /> <span class="muted">{when(step.at)}</span>
						{step.detail ? <div class="timeline-detail">{step.detail}</div> : null}
					</li>
				))}
			</ol>
		</section>
	);
}
