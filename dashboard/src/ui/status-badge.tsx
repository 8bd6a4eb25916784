/** The words a status is shown with; the raw status stays in `data-status` for styling and tests. */
const STATUS_WORDS: Record<string, string> = {
	idle: "idle",
	scheduled: "scheduled",
	requested: "requested",
	joining: "joining",
	awaiting_admission: "in the lobby",
	needs_help: "needs help",
	active: "active",
	stopping: "stopping",
	completed: "completed",
	failed: "failed",
	deleted: "deleted",
};

export function statusWords(status: string): string {
	return STATUS_WORDS[status] ?? status.replace(/_/g, " ");
}

/** A meeting status as a small labelled badge (its colour is a hint only: the word is there too). */
export function StatusBadge(props: { status: string }) {
	return (
		<span class="status-badge" data-status={props.status}>
			{statusWords(props.status)}
		</span>
	);
}
