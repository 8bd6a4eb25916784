import { statusWords } from "../words";

/** The words a status is shown with (words/meeting.ts); the raw status stays in `data-status` for styling and tests. */
export { statusWords };

/** A meeting status as a small labelled badge (its colour is a hint only: the word is there too). */
export function StatusBadge(props: { status: string }) {
	return (
		<span class="status-badge" data-status={props.status}>
			{statusWords(props.status)}
		</span>
	);
}
