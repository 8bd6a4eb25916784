import type { Segment } from "../types";
import { clock } from "./format";

/**
 * A transcript as a list of lines: speaker, time from the session start, language, text.
 * Confirmed lines are plain; a pending line (a draft the bot may still replace) is marked
 * `data-state="pending"`, styled lighter and labelled "(pending)" for screen readers too.
 * The list is a polite live region, so new lines are announced as they are spoken.
 * Every field is untrusted meeting content: rendered as JSX text only.
 */
export function TranscriptView(props: { lines: Segment[]; label?: string; empty?: string }) {
	return (
		<ol class="transcript" aria-label={props.label ?? "Transcript"} aria-live="polite" aria-relevant="additions text">
			{props.lines.length === 0 ? <li class="transcript-empty">{props.empty ?? "No transcript yet."}</li> : null}
			{props.lines.map((line) => (
				<li
					key={line.segment_id}
					class="transcript-line"
					data-state={line.completed ? "confirmed" : "pending"}
					data-segment-id={line.segment_id}
				>
					<span class="line-meta">
						<time class="line-time">{clock(line.start)}</time>
						<strong class="line-speaker">{line.speaker || "Unknown speaker"}</strong>
						{line.language ? (
							<span class="line-language" title="language">
								{line.language}
							</span>
						) : null}
						{line.completed ? null : <span class="line-state">(pending)</span>}
					</span>
					<span class="line-text">{line.text}</span>
				</li>
			))}
		</ol>
	);
}
