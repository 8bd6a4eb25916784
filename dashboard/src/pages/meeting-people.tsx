import { useEffect, useRef } from "preact/hooks";
import { abortable } from "../api";
import { isLive } from "../meeting-words";
import { shareWords, stayWords, talkWords, totalTalk } from "../people-words";
import type { Meeting } from "../types";
import { ErrorBanner, useResource } from "../ui";

/** How often a live meeting's people are read again: talk time grows as they speak. */
const LIVE_READ_MS = 10_000;

/**
 * Who was there (docs/api.md#participants): each participant's stays, talk time and share of
 * the talk, and the speakers no participant's name matched, live or ended. Read again on a join
 * or leave frame (`round`), every 5 s while the feed is down, and every 10 s while live. Names
 * are what the platform showed: JSX text only.
 */
export function PeoplePanel(props: { meeting: Meeting; round: number; poll: boolean }) {
	const { meeting } = props;
	const people = useResource((signal) => abortable(signal).meetings.participants(meeting.id), `${meeting.id}:${props.round}`);
	const reload = useRef(people.reload);
	reload.current = people.reload;
	const live = isLive(meeting.status);
	useEffect(() => {
		if (!live) return;
		const timer = setInterval(() => reload.current(), props.poll ? 5000 : LIVE_READ_MS);
		return () => clearInterval(timer);
	}, [live, props.poll]);
	// An ended meeting is read once more, so the last leaves and confirmed lines show.
	useEffect(() => {
		if (!live) reload.current();
	}, [live]);

	const participants = people.data?.participants ?? [];
	const speakers = people.data?.speakers ?? [];
	const total = totalTalk(speakers);
	const unmatched = speakers.filter((s) => s.participant_id === null);
	return (
		<section aria-labelledby="participants-heading" class="panel" data-testid="people">
			<h2 id="participants-heading">People</h2>
			<ErrorBanner error={people.error} />
			{people.data && participants.length === 0 ? <p class="muted">Nobody seen yet.</p> : null}
			{participants.length > 0 ? (
				<table class="people">
					<thead>
						<tr>
							<th scope="col">Name</th>
							<th scope="col">Joined and left</th>
							<th scope="col">Talk time</th>
							<th scope="col">Share</th>
						</tr>
					</thead>
					<tbody>
						{participants.map((p) => (
							<tr key={p.participant_id} data-participant={p.participant_id}>
								<th scope="row" class="participant-name">
									{p.name || "Unknown"}
								</th>
								<td>
									<ul class="stays">
										{p.intervals.map((stay, i) => (
											<li key={`${i}-${stay.joined_at}`}>{stayWords(stay, live)}</li>
										))}
									</ul>
								</td>
								<td data-testid="talk-time">{talkWords(p.talk_time_s)}</td>
								<td data-testid="talk-share">{shareWords(p.talk_time_s, total)}</td>
							</tr>
						))}
					</tbody>
				</table>
			) : null}
			{unmatched.length > 0 ? (
				<p class="muted" data-testid="unmatched-speakers">
					Also speaking, matched to no one here by name:{" "}
					{unmatched.map((s, i) => (
						<span key={`${i}-${s.speaker}`}>
							{i > 0 ? ", " : ""}
							{s.speaker || "an unnamed speaker"} ({talkWords(s.talk_time_s)}, {shareWords(s.talk_time_s, total)})
						</span>
					))}
				</p>
			) : null}
		</section>
	);
}
