import { useState } from "preact/hooks";
import { abortable, api } from "../api";
import { useCanAct } from "../me";
import { ActionStatus, useAction } from "../settings/status";
import { ErrorBanner, errorText, useResource, when } from "../ui";
import { EMPTY_ROUTINE, type Routine, type RoutineFieldErrors, type RoutineForm, scheduleText, validateRoutine } from "./routine-form";

function whenOrNever(iso: string | null): string {
	return iso ? when(iso) : "never";
}

function FieldError({ id, text }: { id: string; text?: string }) {
	return text ? (
		<small id={id} class="field-error">
			{text}
		</small>
	) : null;
}

function NewRoutine({ onCreated }: { onCreated: () => void }) {
	const [form, setForm] = useState<RoutineForm>(EMPTY_ROUTINE);
	const [errors, setErrors] = useState<RoutineFieldErrors>({});
	const [state, act] = useAction();

	const submit = (e: Event) => {
		e.preventDefault();
		const checked = validateRoutine(form);
		if (!checked.ok) {
			setErrors(checked.errors);
			return;
		}
		setErrors({});
		void act(async () => {
			const created = await api.agent.routines.create(checked.body);
			setForm(EMPTY_ROUTINE);
			onCreated();
			return `Routine ${created.routine.name} saved${created.ran_now ? "; its first run has started" : ""}.`;
		});
	};

	const invalid = (field: keyof RoutineFieldErrors) =>
		errors[field] ? { "aria-invalid": true, "aria-describedby": `routine-${field}-error` } : {};

	return (
		<form onSubmit={submit} noValidate class="panel routine-form" aria-labelledby="new-routine-heading">
			<h2 id="new-routine-heading">New routine</h2>
			<div class="field">
				<label for="routine-name">Name</label>
				<input
					id="routine-name"
					value={form.name}
					maxLength={100}
					{...invalid("name")}
					onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
				/>
				<FieldError id="routine-name-error" text={errors.name} />
			</div>
			<fieldset>
				<legend>Runs</legend>
				<label class="check">
					<input
						type="radio"
						name="routine-trigger"
						checked={form.trigger === "cron"}
						onChange={() => setForm({ ...form, trigger: "cron" })}
					/>
					On a schedule
				</label>
				<label class="check">
					<input
						type="radio"
						name="routine-trigger"
						checked={form.trigger === "event"}
						onChange={() => setForm({ ...form, trigger: "event", runNow: false })}
					/>
					After each of my meetings completes
				</label>
			</fieldset>
			{form.trigger === "cron" && (
				<div class="field">
					<label for="routine-cron">Cron (UTC)</label>
					<input
						id="routine-cron"
						value={form.cron}
						placeholder="0 9 * * 1-5"
						{...invalid("cron")}
						onInput={(e) => setForm({ ...form, cron: e.currentTarget.value })}
					/>
					<small>minute hour day-of-month month day-of-week</small>
					<FieldError id="routine-cron-error" text={errors.cron} />
				</div>
			)}
			<div class="field">
				<label for="routine-prompt">Prompt</label>
				<textarea
					id="routine-prompt"
					rows={3}
					value={form.prompt}
					{...invalid("prompt")}
					onInput={(e) => setForm({ ...form, prompt: e.currentTarget.value })}
				/>
				<FieldError id="routine-prompt-error" text={errors.prompt} />
			</div>
			{form.trigger === "cron" && (
				<label class="check">
					<input type="checkbox" checked={form.runNow} onChange={(e) => setForm({ ...form, runNow: e.currentTarget.checked })} />
					Run once now as well
				</label>
			)}
			<button class="btn btn-primary" type="submit" disabled={state.kind === "busy"}>
				Create routine
			</button>
			<ActionStatus state={state} />
		</form>
	);
}

function RoutineItem({ routine, onChanged, canAct }: { routine: Routine; onChanged: (message: string) => void; canAct: boolean }) {
	const [error, setError] = useState("");
	const [busy, setBusy] = useState(false);
	const run = async (action: () => Promise<string>) => {
		setBusy(true);
		setError("");
		try {
			onChanged(await action());
		} catch (err) {
			setError(errorText(err));
		} finally {
			setBusy(false);
		}
	};
	const toggle = (enabled: boolean) =>
		run(async () => {
			await api.agent.routines.setEnabled(routine.name, { enabled });
			return `Routine ${routine.name} ${enabled ? (routine.needs_confirmation ? "confirmed and enabled" : "enabled") : "disabled"}.`;
		});
	// Deleting asks once more in the page itself (no modal dialog): a deleted routine stays deleted.
	const [confirming, setConfirming] = useState(false);
	const remove = () => {
		setConfirming(false);
		void run(async () => {
			await api.agent.routines.delete(routine.id);
			return `Routine ${routine.name} deleted.`;
		});
	};
	const headingId = `routine-${routine.id}`;
	return (
		<li class="routine" aria-labelledby={headingId}>
			<div class="settings-row">
				<h3 id={headingId}>{routine.name}</h3>
				<span class={`routine-status routine-${routine.status}`}>{routine.status}</span>
			</div>
			<dl>
				<dt>Runs</dt>
				<dd>{scheduleText(routine)}</dd>
				<dt>Prompt</dt>
				<dd>{routine.plan_summary}</dd>
				{routine.kind === "scheduled" && (
					<>
						<dt>Next run</dt>
						<dd>{routine.next_run ? whenOrNever(routine.next_run) : "not scheduled"}</dd>
					</>
				)}
				<dt>Last run</dt>
				<dd>
					{whenOrNever(routine.last_run)}
					{routine.last_ok !== null && (
						<span class={routine.last_ok ? "routine-outcome run-ok" : "routine-outcome run-failed"}>
							{routine.last_ok ? " · succeeded" : " · failed"}
						</span>
					)}
				</dd>
				{routine.last_error && (
					<>
						<dt>Last error</dt>
						<dd class="tool-failed">{routine.last_error}</dd>
					</>
				)}
				{routine.last_reply !== null && (
					<>
						<dt>Last reply</dt>
						{/* The agent's words, as text: never Markdown or HTML rendered. */}
						<dd class="reply-text routine-reply">{routine.last_reply}</dd>
					</>
				)}
				{routine.needs_confirmation && (
					<>
						<dt>Waiting for you</dt>
						<dd>{routine.confirmation_reason}</dd>
					</>
				)}
			</dl>
			{canAct && (
				<div class="routine-actions">
					{routine.needs_confirmation && (
						<button class="btn btn-primary" type="button" disabled={busy} onClick={() => void toggle(true)}>
							Confirm and enable
						</button>
					)}
					<label class="check">
						<input
							type="checkbox"
							checked={routine.enabled}
							disabled={busy}
							aria-label={`Enabled: ${routine.name}`}
							onChange={(e) => void toggle(e.currentTarget.checked)}
						/>
						Enabled
					</label>
					{confirming ? (
						<>
							<button
								class="btn btn-danger"
								type="button"
								disabled={busy}
								onClick={remove}
								aria-label={`Confirm deleting routine ${routine.name}`}
							>
								Confirm delete
							</button>
							<button class="btn" type="button" onClick={() => setConfirming(false)}>
								Keep it
							</button>
						</>
					) : (
						<button
							class="btn"
							type="button"
							disabled={busy}
							onClick={() => setConfirming(true)}
							aria-label={`Delete routine ${routine.name}`}
						>
							Delete
						</button>
					)}
				</div>
			)}
			{error && (
				<p role="alert" class="error-banner">
					{error}
				</p>
			)}
		</li>
	);
}

/** `#/agent/routines`: the saved prompts the agent runs on a schedule or after meetings. */
export function RoutinesPanel() {
	const list = useResource((signal) => abortable(signal).agent.routines.list(), "routines");
	const routines = list.data?.routines ?? null;
	const [notice, setNotice] = useState("");
	// Making and changing routines takes a `bot` key; a `tx` key reads them.
	const canAct = useCanAct();
	const changed = (message: string) => {
		setNotice(message);
		list.reload();
	};
	return (
		<div class="routines-layout">
			<section aria-labelledby="routines-heading" class="routines">
				<h2 id="routines-heading">Routines</h2>
				<p role="status" class="notice">
					{notice}
				</p>
				<ErrorBanner error={list.error} />
				{routines && routines.length === 0 && <p>No routines yet.</p>}
				<ul class="routine-list">
					{(routines ?? []).map((routine) => (
						<RoutineItem key={routine.id} routine={routine} onChanged={changed} canAct={canAct} />
					))}
				</ul>
			</section>
			{canAct && <NewRoutine onCreated={list.reload} />}
		</div>
	);
}
