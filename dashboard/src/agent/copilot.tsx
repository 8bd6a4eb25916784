import { useState } from "preact/hooks";
import { isPlatform } from "../../../src/platforms/index.ts";
import { abortable, api } from "../api";
import { LIVE_STATUSES, meetingTitle, platformWords } from "../meeting-words";
import { navigate } from "../route";
import { ActionStatus, useAction } from "../settings/status";
import type { Meeting, Segment } from "../types";
import { ErrorBanner, errorText, StatusBadge, TranscriptView, useResource } from "../ui";
import { cardKindWords, reasonWords, statusWords } from "../words";
import type { BeatCard, MeetingStreamState, TranscriptLine } from "./meeting-stream";
import { useMeetingStream } from "./use-meeting-stream";

function titleOf(meeting: Meeting): string {
	return meetingTitle(meeting);
}

/** The caller's meeting a person's words name: its number, its link or its own code (GET /agent/meeting/resolve). */
const resolveMeeting = (ref: string, signal?: AbortSignal) => (signal ? abortable(signal) : api).agent.meeting.resolve(ref);

/** The API's words for a reference it cannot use, without the field's name in front. */
const refProblem = (err: unknown) => errorText(err).replace(/^Meeting: /, "");

/** `#/agent/copilot`: the live meetings to follow, or any of the user's meetings by its number, link or code. */
function MeetingPicker() {
	const live = useResource((signal) => abortable(signal).meetings.list({ status: LIVE_STATUSES.join(","), limit: 50 }), "live");
	const meetings = live.data?.meetings ?? null;
	const [ref, setRef] = useState("");
	const [problem, setProblem] = useState("");
	const [busy, setBusy] = useState(false);
	const open = async (e: Event) => {
		e.preventDefault();
		const text = ref.trim();
		if (!text) {
			setProblem("Type a meeting's number, its link (Google Meet, Zoom or Teams) or its code, such as abc-defg-hij.");
			return;
		}
		setBusy(true);
		setProblem("");
		try {
			const meeting = await resolveMeeting(text);
			navigate(`/agent/copilot/${meeting.id}`);
		} catch (err) {
			setProblem(refProblem(err));
		} finally {
			setBusy(false);
		}
	};
	return (
		<section aria-labelledby="live-heading">
			<div class="settings-row">
				<h2 id="live-heading">Live meetings</h2>
				<button class="btn" type="button" onClick={live.reload}>
					Refresh meetings
				</button>
			</div>
			<ErrorBanner error={live.error} />
			{meetings && meetings.length === 0 && (
				<p>No live meetings. Send a bot to a meeting first, or open one by its number, link or code.</p>
			)}
			<ul class="live-meetings">
				{(meetings ?? []).map((m) => (
					<li key={m.id}>
						<a href={`#/agent/copilot/${m.id}`}>{titleOf(m)}</a> <StatusBadge status={m.status} />{" "}
						<small>
							{platformWords(m.platform)} {m.native_meeting_id}
						</small>
					</li>
				))}
			</ul>
			<form onSubmit={(e) => void open(e)} class="inline-form" noValidate>
				<label for="copilot-meeting-ref">Meeting number, link or code</label>
				<input
					id="copilot-meeting-ref"
					value={ref}
					maxLength={2000}
					placeholder="https://meet.google.com/abc-defg-hij"
					aria-invalid={problem ? true : undefined}
					aria-describedby="copilot-meeting-ref-problem"
					onInput={(e) => setRef(e.currentTarget.value)}
				/>
				<button class="btn btn-primary" type="submit" disabled={busy}>
					Open meeting
				</button>
			</form>
			<p id="copilot-meeting-ref-problem" class={problem ? "error-banner" : "visually-hidden"} role={problem ? "alert" : undefined}>
				{problem}
			</p>
		</section>
	);
}

/** The stream's lines in the shape the shared transcript view reads. */
function segments(lines: TranscriptLine[]): Segment[] {
	return lines.map((line) => ({
		segment_id: line.id,
		speaker: line.speaker,
		text: line.text,
		start: line.t,
		end: line.t,
		language: null,
		completed: line.completed,
	}));
}

function Card({ card }: { card: BeatCard }) {
	return (
		<li class={card.actionable ? "card card-actionable" : "card"}>
			<span class="card-kind" data-kind={card.kind}>
				{cardKindWords(card.kind)}
			</span>
			{card.actionable && <span class="card-action"> action</span>}
			<h4 class="card-title">{card.title}</h4>
			<p class="reply-text">{card.body}</p>
		</li>
	);
}

function CopilotColumn({ stream }: { stream: MeetingStreamState }) {
	const beat = stream.beats.at(-1);
	return (
		<section aria-labelledby="copilot-heading" class="copilot-column">
			<h3 id="copilot-heading">Copilot</h3>
			{stream.cards.length === 0 ? (
				<p>No cards yet.</p>
			) : (
				<ul class="cards" aria-label="Cards">
					{/* Newest first: the copilot adds cards as the meeting goes on. */}
					{[...stream.cards].reverse().map((card, i) => (
						<Card key={card.id || `${stream.cards.length - i}`} card={card} />
					))}
				</ul>
			)}
			{beat && beat.text !== "" && (
				<div class="beat">
					<h4>Latest thoughts</h4>
					<p class="reply-text">{beat.text}</p>
				</div>
			)}
			<details>
				<summary>Notes ({stream.notes.length})</summary>
				<ul class="notes">
					{stream.notes.map((note) => (
						<li key={note.id}>
							{note.speaker && <span class="line-speaker">{note.speaker}: </span>}
							{note.text}
						</li>
					))}
				</ul>
			</details>
		</section>
	);
}

const CONNECTION_TEXT = {
	connecting: "Connecting…",
	live: "Live",
	reconnecting: "Reconnecting…",
	stopped: "Stopped",
	ended: "Meeting ended",
};

/**
 * `#/agent/copilot/<meeting>`: the meeting its number, link or code names (an address typed or
 * kept from before is resolved as the form resolves it), then its copilot.
 */
function CopilotMeeting({ meetingRef }: { meetingRef: string }) {
	const record = useResource((signal) => resolveMeeting(meetingRef, signal), meetingRef);
	if (record.data) return <CopilotLive meeting={record.data} />;
	return (
		<div>
			<p>
				<a href="#/agent/copilot">All live meetings</a>
			</p>
			{record.error ? (
				<p role="alert" class="error-banner">
					{refProblem(record.error)}
				</p>
			) : (
				<p role="status">Finding the meeting…</p>
			)}
		</div>
	);
}

type CopilotState = "none" | "running" | "paused" | "ended";

const COPILOT_STATE_TEXT: Record<CopilotState, string> = {
	none: "not started",
	running: "running",
	paused: "stopped (its notes and cards stay)",
	ended: "finished with the meeting",
};

/** One meeting's copilot: where it is (GET /agent/meeting/copilot), start or stop it, its cards beside the live transcript. */
function CopilotLive({ meeting }: { meeting: Meeting }) {
	const meetingId = String(meeting.id);
	const status = useResource((signal) => abortable(signal).agent.meeting.copilot(meetingId), meetingId);
	const [changed, setChanged] = useState<CopilotState | null>(null);
	const [state, act] = useAction();
	const { stream, connection, error } = useMeetingStream(meetingId);
	const copilot: CopilotState | null = stream.ended ? "ended" : (changed ?? status.data?.copilot ?? null);

	const link =
		meeting.native_meeting_id && isPlatform(meeting.platform) ? { native_id: meeting.native_meeting_id, platform: meeting.platform } : null;
	const start = () =>
		act(async () => {
			if (!link) throw new Error("This meeting has no link: the copilot follows a meeting by its link.");
			const title = meeting.data?.title;
			await api.agent.meeting.start({ ...link, ...(typeof title === "string" && title ? { title } : {}) });
			setChanged("running");
			return "Copilot started.";
		});
	const setOn = (on: boolean) =>
		act(async () => {
			if (!link) throw new Error("This meeting has no link.");
			await api.agent.meeting.process({ ...link, meeting_id: meetingId, on });
			setChanged(on ? "running" : "paused");
			return on ? "Copilot resumed." : "Copilot stopped.";
		});
	const busy = state.kind === "busy";

	return (
		<div>
			<p>
				<a href="#/agent/copilot">All live meetings</a> · <a href={`#/meetings/${encodeURIComponent(meetingId)}`}>Meeting page</a>
			</p>
			<div class="settings-row">
				<h2>{titleOf(meeting)}</h2>
				<span class="notice" role="status">
					Stream: {CONNECTION_TEXT[connection]}
				</span>
			</div>
			{error && (
				<p role="alert" class="error-banner">
					{error}
				</p>
			)}
			{stream.ended && (
				<p class="meeting-ended">
					Meeting ended: {statusWords(stream.ended.status)}
					{stream.ended.completionReason ? ` (${reasonWords(stream.ended.completionReason)})` : ""}
				</p>
			)}
			<div class="copilot-actions">
				<p role="status" data-copilot={copilot ?? "unknown"}>
					Copilot: {copilot ? COPILOT_STATE_TEXT[copilot] : "…"}
				</p>
				<ErrorBanner error={status.error} />
				{copilot === "none" && (
					<button class="btn btn-primary" type="button" onClick={() => void start()} disabled={!link || busy}>
						Start copilot
					</button>
				)}
				{copilot === "running" && (
					<button class="btn" type="button" onClick={() => void setOn(false)} disabled={busy}>
						Stop copilot
					</button>
				)}
				{copilot === "paused" && (
					<button class="btn btn-primary" type="button" onClick={() => void setOn(true)} disabled={busy}>
						Resume copilot
					</button>
				)}
			</div>
			<ActionStatus state={state} />
			<div class="copilot-layout">
				<section aria-labelledby="transcript-heading" class="transcript-column">
					<h3 id="transcript-heading">Live transcript</h3>
					<TranscriptView lines={segments(stream.lines)} label="Live transcript" empty="Nothing said yet." />
				</section>
				<CopilotColumn stream={stream} />
			</div>
		</div>
	);
}

export function CopilotPanel({ meetingRef }: { meetingRef: string | undefined }) {
	return meetingRef ? <CopilotMeeting key={meetingRef} meetingRef={meetingRef} /> : <MeetingPicker />;
}
