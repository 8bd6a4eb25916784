import { useState } from "preact/hooks";
import { api } from "../api";
import {
	type AutoJoinRules,
	autoJoinWords,
	type CalendarView,
	calendarRefusal,
	countsWords,
	kindWords,
	rulesWords,
	sourceWords,
} from "../calendar-words";
import { planTime } from "../plan-time";
import type { SyncStamp } from "../types";
import { Button, CheckboxField, ErrorBanner, TextField } from "../ui";

export interface CalendarRow {
	calendar: CalendarView;
	stamp: SyncStamp;
}

/** What a row's action tells the page: a line to announce, and whether plans may have changed. */
export type RowChange = { words: string; plansChanged: boolean };

/** The account's calendar connections, one row each with its last sync and its actions. */
export function CalendarTable(props: { rows: CalendarRow[]; canAct: boolean; onChanged: (change: RowChange) => void }) {
	return (
		<table class="table" aria-label="Calendars">
			<thead>
				<tr>
					<th scope="col">Calendar</th>
					<th scope="col">Auto-join</th>
					<th scope="col">Last sync</th>
					<th scope="col">
						<span class="visually-hidden">Actions</span>
					</th>
				</tr>
			</thead>
			<tbody>
				{props.rows.map((row) => (
					<CalendarRowView key={row.calendar.id} row={row} canAct={props.canAct} onChanged={props.onChanged} />
				))}
			</tbody>
		</table>
	);
}

function CalendarRowView(props: { row: CalendarRow; canAct: boolean; onChanged: (change: RowChange) => void }) {
	const { calendar, stamp } = props.row;
	const [busy, setBusy] = useState<string | null>(null);
	const [error, setError] = useState<string | null>(null);
	const [confirming, setConfirming] = useState(false);

	async function act(what: string, run: () => Promise<RowChange>) {
		setError(null);
		setBusy(what);
		try {
			props.onChanged(await run());
		} catch (err) {
			setError(calendarRefusal(err));
		} finally {
			setBusy(null);
		}
	}

	const syncNow = () =>
		act("sync", async () => {
			const done = await api.calendars.sync(calendar.id);
			const words = done.last_error
				? `Sync of ${calendar.name} failed: ${done.last_error}`
				: `${calendar.name} synced: ${countsWords(done.counts).toLowerCase()}.`;
			return { words, plansChanged: true };
		});
	const setEnabled = (enabled: boolean) =>
		act("enable", async () => {
			const changed = await api.calendars.update(calendar.id, { enabled });
			const synced = changed.sync ? ` and synced: ${countsWords(changed.sync.counts).toLowerCase()}` : "";
			return { words: `${calendar.name} ${enabled ? `enabled${synced}` : "disabled: it is no longer synced"}.`, plansChanged: enabled };
		});
	const remove = () =>
		act("remove", async () => {
			await api.calendars.disconnect(calendar.id);
			return { words: `Calendar ${calendar.name} removed.`, plansChanged: true };
		});

	const lastSync = "last_sync" in stamp ? stamp : null;
	return (
		<tr data-calendar-id={calendar.id}>
			<td data-label="Calendar">
				<strong>{calendar.name}</strong>
				<div class="muted">{`${kindWords(calendar)} · ${sourceWords(calendar)}`}</div>
				<div>{calendar.enabled ? "Enabled" : "Disabled: not synced"}</div>
			</td>
			<td data-label="Auto-join">
				<div>{autoJoinWords(calendar)}</div>
				<div class="muted">{rulesWords(calendar.auto_join_rules)}</div>
				{props.canAct ? <RulesEditor calendar={calendar} onSaved={(words) => props.onChanged({ words, plansChanged: true })} /> : null}
			</td>
			<td data-label="Last sync">
				{lastSync ? <div>{planTime(lastSync.last_sync)}</div> : <div>Not synced yet</div>}
				{lastSync?.last_error ? <div class="error-text">{lastSync.last_error}</div> : null}
				{lastSync ? <div class="muted">{countsWords(lastSync.counts)}</div> : null}
			</td>
			<td>
				{props.canAct ? (
					<div class="actions">
						<Button onClick={() => void syncNow()} busy={busy === "sync"} disabled={!calendar.enabled} label={`Sync ${calendar.name} now`}>
							Sync now
						</Button>
						<Button
							onClick={() => void setEnabled(!calendar.enabled)}
							busy={busy === "enable"}
							label={`${calendar.enabled ? "Disable" : "Enable"} ${calendar.name}`}
						>
							{calendar.enabled ? "Disable" : "Enable"}
						</Button>
						<Button variant="danger" onClick={() => setConfirming(true)} label={`Remove ${calendar.name}`}>
							Remove
						</Button>
					</div>
				) : null}
				{confirming ? (
					<section class="confirm-remove" aria-label={`Remove ${calendar.name}?`}>
						<p>{`Remove ${calendar.name}? The meetings only it planned are deleted; meetings under way and ones you planned yourself stay.`}</p>
						<Button variant="danger" busy={busy === "remove"} onClick={() => void remove()}>
							Yes, remove it
						</Button>
						<Button onClick={() => setConfirming(false)}>Cancel</Button>
					</section>
				) : null}
				<ErrorBanner error={error} />
			</td>
		</tr>
	);
}

/** A signed-in calendar's auto-join rules, saved by PATCH. */
function RulesEditor(props: { calendar: CalendarView; onSaved: (words: string) => void }) {
	const rules = props.calendar.auto_join_rules;
	const [organizerOnly, setOrganizerOnly] = useState(rules.organizer_only);
	const [minAttendees, setMinAttendees] = useState(rules.min_attendees === null ? "" : String(rules.min_attendees));
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);

	async function save(event: Event) {
		event.preventDefault();
		setError(null);
		setBusy(true);
		try {
			const auto_join_rules: AutoJoinRules = {
				organizer_only: organizerOnly,
				min_attendees: minAttendees.trim() ? Number(minAttendees) : null,
			};
			await api.calendars.update(props.calendar.id, { auto_join_rules });
			props.onSaved(`Auto-join rules of ${props.calendar.name} saved.`);
		} catch (err) {
			setError(calendarRefusal(err));
		} finally {
			setBusy(false);
		}
	}

	return (
		<form class="rules" aria-label={`Auto-join rules of ${props.calendar.name}`} onSubmit={(e) => void save(e)}>
			<CheckboxField label="Only meetings I organise" checked={organizerOnly} onChecked={setOrganizerOnly} />
			<TextField
				label="At least this many attendees"
				type="number"
				value={minAttendees}
				onValue={setMinAttendees}
				hint="Empty: any number."
			/>
			<ErrorBanner error={error} />
			<Button type="submit" busy={busy}>
				Save rules
			</Button>
		</form>
	);
}
