import { MeetbotApiError } from "@meetbot/client";
import { useEffect, useState } from "preact/hooks";
import { api, refusalText } from "../api";
import type { Meeting, MeetingSummary } from "../types";
import { when } from "../ui";

/** How often a summary still being made is read again. */
const PENDING_POLL_MS = 3000;

/**
 * The top of a completed meeting's page: its summary, decisions and action items
 * (docs/api.md#summaries), "Summarizing…" while the model works (read again until it is done),
 * and, without a model, how to turn summaries on. What the model wrote comes from what people
 * said: it is rendered as JSX text only.
 */
export function MeetingSummaryPanel(props: { meeting: Meeting }) {
	const { meeting } = props;
	const fromRecord = meeting.data?.summary ?? null;
	const [summary, setSummary] = useState<MeetingSummary | null>(fromRecord);
	// A record read again (the meeting just completed) brings its summary.
	useEffect(() => setSummary(fromRecord), [meeting.id, fromRecord?.status, fromRecord?.generated_at]);

	const pending = summary?.status === "pending";
	useEffect(() => {
		if (!pending) return;
		let stopped = false;
		const timer = setInterval(() => {
			api.meetings.summary(meeting.id).then(
				(fresh) => {
					if (!stopped && fresh.status !== "pending") setSummary(fresh);
				},
				// A failed read waits for the next round.
				() => undefined,
			);
		}, PENDING_POLL_MS);
		return () => {
			stopped = true;
			clearInterval(timer);
		};
	}, [pending, meeting.id]);

	if (meeting.status !== "completed") return null;
	return (
		<section
			aria-labelledby="summary-heading"
			class="panel summary-panel"
			data-testid="meeting-summary"
			data-status={summary?.status ?? "none"}
		>
			<h2 id="summary-heading">Summary</h2>
			{summary ? <SummaryBody summary={summary} /> : <p>No summary was made for this meeting: it ended before summaries were made.</p>}
			{!summary || summary.status === "failed" || summary.status === "no_model" ? (
				<AskAgain meetingId={meeting.id} onPending={setSummary} />
			) : null}
		</section>
	);
}

/** Asks for the summary again (POST /meetings/{id}/summary); the API's refusal (e.g. still no model) is shown in its words. */
function AskAgain(props: { meetingId: number; onPending: (summary: MeetingSummary) => void }) {
	const [busy, setBusy] = useState(false);
	const [refusal, setRefusal] = useState<string | null>(null);
	const ask = () => {
		setBusy(true);
		setRefusal(null);
		api.meetings.summarize(props.meetingId).then(
			(pending) => {
				setBusy(false);
				props.onPending(pending);
			},
			(err: unknown) => {
				setBusy(false);
				setRefusal(err instanceof MeetbotApiError ? refusalText(err) : "The summary could not be asked for");
			},
		);
	};
	return (
		<p>
			<button type="button" onClick={ask} disabled={busy} data-testid="summary-ask">
				Summarize now
			</button>
			{refusal ? (
				<span class="error-banner" role="alert" data-testid="summary-refusal">
					{" "}
					{refusal}
				</span>
			) : null}
		</p>
	);
}

function SummaryBody(props: { summary: MeetingSummary }) {
	const { summary } = props;
	if (summary.status === "pending") {
		return (
			<p class="muted" role="status">
				Summarizing…
			</p>
		);
	}
	if (summary.status === "no_model") {
		return (
			<p>
				No summary: no model was configured when this meeting ended. To have meetings summarized, set a model under{" "}
				<a href="#/settings">Settings → Model</a>.
			</p>
		);
	}
	if (summary.status === "failed") {
		return (
			<p class="error-banner" data-testid="summary-error">
				The summary could not be made: {summary.error ?? "no reason given"}
			</p>
		);
	}
	return (
		<>
			{summary.summary ? (
				<p class="summary-text" data-testid="summary-text">
					{summary.summary}
				</p>
			) : (
				<p class="muted">Nothing was said in this meeting, so there is nothing to summarize.</p>
			)}
			{summary.decisions.length > 0 ? (
				<>
					<h3>Decisions</h3>
					<ul data-testid="summary-decisions">
						{summary.decisions.map((decision, i) => (
							<li key={`${i}:${decision}`}>{decision}</li>
						))}
					</ul>
				</>
			) : null}
			{summary.action_items.length > 0 ? (
				<>
					<h3>Action items</h3>
					<ul data-testid="summary-actions">
						{summary.action_items.map((item, i) => (
							<li key={`${i}:${item.text}`}>
								{item.text}
								{item.owner ? <span class="summary-owner"> ({item.owner})</span> : null}
							</li>
						))}
					</ul>
				</>
			) : null}
			<p class="muted">
				Made by {summary.model ?? "the model"} {when(summary.generated_at)}
			</p>
		</>
	);
}
