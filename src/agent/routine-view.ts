/**
 * A routine as the API shows it (GET /agent/api/routines), declared once for the Worker and the
 * dashboard; it imports nothing so the dashboard's build can take it as it is.
 */

export type RoutineStatus = "scheduled" | "retrying" | "listening" | "disabled";

export interface RoutineView {
	id: string;
	name: string;
	kind: "scheduled" | "event";
	cron: string | null;
	event: string | null;
	lifecycle: "oneshot";
	plan_summary: string;
	job_id: string | null;
	next_run: string | null;
	status: RoutineStatus;
	enabled: boolean;
	last_run: string | null;
	/** How the latest run ended: true succeeded, false failed (see last_error); null before the first run. */
	last_ok: boolean | null;
	last_error: string | null;
	/** What the agent replied in the latest run (plain text, cut to 4000 characters); null when no turn ran. */
	last_reply: string | null;
	/** The workload of the latest run, readable at GET /agent/api/workloads/{id}. */
	last_workload_id: string | null;
	/** Made or changed by an agent turn (a routine file) and not yet confirmed by the user: it stays disabled until then. */
	needs_confirmation: boolean;
	/** Why it waits, and how to confirm it; null when nothing waits. */
	confirmation_reason: string | null;
}
