/**
 * The new-routine form (docs/agent.md#routines): checked here for what can be told without the
 * server (so a typo is named next to its field at once); the cron's ranges and days are the
 * server's to judge, and its 422 `detail` is shown as it comes.
 */

import type { BodyOf, Schemas } from "@meetbot/client";

/** A routine as GET /agent/api/routines lists it. */
export type Routine = Schemas["Routine"];

export interface RoutineForm {
	name: string;
	trigger: "cron" | "event";
	cron: string;
	prompt: string;
	runNow: boolean;
}

/** The POST /agent/routines body, as the API declares it. */
export type RoutineBody = BodyOf<"/agent/routines", "post">;

export type RoutineFieldErrors = Partial<Record<"name" | "cron" | "prompt" | "runNow", string>>;

export const EMPTY_ROUTINE: RoutineForm = { name: "", trigger: "cron", cron: "", prompt: "", runNow: false };

const CRON_FIELD = /^[0-9A-Za-z*,/-]+$/;

export function validateRoutine(form: RoutineForm): { ok: true; body: RoutineBody } | { ok: false; errors: RoutineFieldErrors } {
	const errors: RoutineFieldErrors = {};
	const name = form.name.trim();
	const prompt = form.prompt.trim();
	if (name === "") errors.name = "Give the routine a name.";
	else if (name.length > 100) errors.name = "A name is at most 100 characters.";
	if (prompt === "") errors.prompt = "Say what the agent should do.";
	else if (prompt.length > 8000) errors.prompt = "A prompt is at most 8,000 characters.";
	const cron = form.cron.trim().split(/\s+/).filter(Boolean);
	if (form.trigger === "cron") {
		if (cron[0]?.startsWith("@")) errors.cron = "Nicknames such as @daily are not taken: write the five fields (e.g. 0 9 * * *).";
		else if (cron.length !== 5) errors.cron = `A cron needs 5 fields (minute hour day month weekday), got ${cron.length}.`;
		else if (!cron.every((field) => CRON_FIELD.test(field))) errors.cron = "Each field is *, a number, a range, a step or a comma list.";
	} else if (form.runNow) {
		errors.runNow = "Only a scheduled routine can run now.";
	}
	if (Object.keys(errors).length > 0) return { ok: false, errors };
	const body: RoutineBody =
		form.trigger === "cron"
			? { name, prompt, run_now: form.runNow, cron: cron.join(" ") }
			: { name, prompt, run_now: false, event: "meeting.completed" };
	return { ok: true, body };
}

/** When a routine runs, in words. */
export function scheduleText(routine: Pick<Routine, "kind" | "cron" | "event">): string {
	if (routine.kind === "event") return `After each ${routine.event ?? "meeting.completed"}`;
	return `${routine.cron ?? ""} (UTC)`;
}
