import { useLayoutEffect, useRef } from "preact/hooks";
import type { Segment } from "../types";
import { clock } from "./format";

/**
 * A transcript as a list of lines: speaker, time from the session start, language, text.
 * Confirmed lines are plain; a pending line (a draft the bot may still replace) is marked
 * `data-state="pending"`, styled lighter and labelled "(pending)" for screen readers too.
 * The list is a polite live region, so new lines are announced as they are spoken.
 * Every field is untrusted meeting content: rendered as JSX text only.
 * While the reader is at the bottom of the list it follows new lines; scrolled up, it stays put.
 */
export function TranscriptView(props: { lines: Segment[]; label?: string; empty?: string }) {
	const list = useRef<HTMLOListElement>(null);
	const atBottom = useRef(true);
	const last = props.lines.at(-1);
	useLayoutEffect(() => {
		const el = list.current;
		if (el && atBottom.current) el.scrollTop = el.scrollHeight;
	}, [props.lines.length, last?.text, last?.completed]);
	return (
		<ol
			ref={list}
			class="transcript"
			// biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled by keyboard (WCAG 2.1.1)
			tabIndex={0}
			aria-label={props.label ?? "Transcript"}
			aria-live="polite"
			aria-relevant="additions text"
			onScroll={(e) => {
				const el = e.currentTarget;
				atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
			}}
		>
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
