import { useEffect, useState } from "preact/hooks";
import { PLANNED_STATUSES } from "../../../src/meetings/statuses";
import { isPlatform } from "../../../src/platforms/index.ts";
import { abortable, api } from "../api";
import { liveFeed } from "../live";
import { useCanAct } from "../me";
import { feedRefs } from "../meeting-feed";
import { meetingTitle, platformWords } from "../meeting-words";
import type { Calendar, Meeting, SyncStamp } from "../types";
import { Button, CheckboxField, ErrorBanner, StatusBadge, useResource, when } from "../ui";

/** A plan's auto-join state in words: whether, and when, a bot joins by itself. */
export function autoJoinWords(plan: Meeting): string {
	if (!isPlatform(plan.platform) || !plan.native_meeting_id) return "Cannot auto-join: no meeting link";
	if (!plan.auto_join) return "Auto-join off";
	if (plan.status === "scheduled") return `Joins by itself at ${when(plan.data?.scheduled_at)}`;
	return "Auto-join on, but no time is set";
}

/** Plans (idle and scheduled meetings) with their auto-join state, which can be switched here. */
export function PlansSection(props: { round: number }) {
	const plans = useResource(
		(signal) =>
			abortable(signal)
				.meetings.list({ status: PLANNED_STATUSES.join(","), limit: 100 })
				.then((r) => r.meetings),
		`plans:${props.round}`,
	);
	const [error, setError] = useState<unknown>(null);
	const canAct = useCanAct();
	const list = plans.data ?? [];
	const refsKey = feedRefs(list)
		.map((r) => `${r.platform}/${r.native_id}`)
		.join(" ");
	// Re-watches when the set of plan links changes.
	useEffect(
		() =>
			liveFeed.watch(
				feedRefs(list),
				(frame) => frame.type === "meeting.status" && plans.reload(),
				() => plans.reload(),
			),
		[refsKey],
	);

	async function setAutoJoin(plan: Meeting, autoJoin: boolean) {
		setError(null);
		try {
			const updated = await api.meetings.update(plan.id, { auto_join: autoJoin });
			plans.set((current) => (current ?? []).map((m) => (m.id === plan.id ? updated : m)));
		} catch (err) {
			setError(err);
		}
	}

	return (
		<section aria-labelledby="plans-heading">
			<h2 id="plans-heading">Plans</h2>
			<ErrorBanner error={plans.error ?? error} />
			{plans.data && list.length === 0 ? <p>No planned meetings.</p> : null}
			{list.length > 0 ? (
				<table class="table" aria-label="Plans">
					<thead>
						<tr>
							<th scope="col">Meeting</th>
							<th scope="col">Status</th>
							<th scope="col">Auto-join</th>
							<th scope="col">From</th>
						</tr>
					</thead>
					<tbody>
						{list.map((plan) => (
							<tr key={plan.id} data-meeting-id={plan.id}>
								<td data-label="Meeting">
									<a href={`#/meetings/${plan.id}`}>{meetingTitle(plan)}</a>
									<div class="muted">{platformWords(plan.platform)}</div>
								</td>
								<td data-label="Status">
									<StatusBadge status={plan.status} />
								</td>
								<td data-label="Auto-join">
									<CheckboxField
										label={`Auto-join ${meetingTitle(plan)}`}
										checked={plan.auto_join}
										disabled={!canAct}
										onChecked={(checked) => void setAutoJoin(plan, checked)}
									/>
									<div>{autoJoinWords(plan)}</div>
									{plan.data?.auto_join_error ? <div class="error-text">Last attempt failed: {plan.data.auto_join_error}</div> : null}
								</td>
								<td data-label="From">{(plan.data?.calendar_sources ?? []).map((c) => c.name).join(", ") || "Added by hand"}</td>
							</tr>
						))}
					</tbody>
				</table>
			) : null}
		</section>
	);
}

interface CalendarRow {
	calendar: Calendar;
	stamp: SyncStamp;
}

/**
 * Calendar connections with their last sync, its counts and error; "Sync now" runs one and
 * calls `onSynced`, since the plans a sync creates reach no `/ws` subscription yet.
 */
export function CalendarsSection(props: { onSynced: () => void }) {
	const calendars = useResource(async (signal): Promise<CalendarRow[]> => {
		const { calendars: found } = await abortable(signal).calendars.list();
		return Promise.all(
			found.map(async (calendar) => ({
				calendar,
				stamp: await abortable(signal)
					.calendars.lastSync(calendar.id)
					.catch(() => ({})),
			})),
		);
	}, "calendars");
	const [error, setError] = useState<unknown>(null);
	const [syncing, setSyncing] = useState<string | null>(null);

	async function syncNow(id: string) {
		setError(null);
		setSyncing(id);
		try {
			const stamp = await api.calendars.sync(id);
			calendars.set((rows) => (rows ?? []).map((row) => (row.calendar.id === id ? { ...row, stamp } : row)));
			props.onSynced();
		} catch (err) {
			setError(err);
		} finally {
			setSyncing(null);
		}
	}

	const rows = calendars.data ?? [];
	return (
		<section aria-labelledby="calendars-heading">
			<h2 id="calendars-heading">Calendars</h2>
			<ErrorBanner error={calendars.error ?? error} />
			{calendars.data && rows.length === 0 ? <p>No calendars connected.</p> : null}
			{rows.length > 0 ? (
				<table class="table" aria-label="Calendars">
					<thead>
						<tr>
							<th scope="col">Calendar</th>
							<th scope="col">Auto-join</th>
							<th scope="col">Last sync</th>
							<th scope="col">Result</th>
							<th scope="col">
								<span class="visually-hidden">Actions</span>
							</th>
						</tr>
					</thead>
					<tbody>
						{rows.map(({ calendar, stamp }) => (
							<tr key={calendar.id}>
								<td data-label="Calendar">
									{calendar.name}
									<div class="muted">{calendar.ics_url_masked ?? "no address"}</div>
									{calendar.enabled ? null : <div class="muted">disabled</div>}
								</td>
								<td data-label="Auto-join">{calendar.auto_join ? `on, as ${calendar.bot_name}` : "off"}</td>
								<td data-label="Last sync">{stamp.last_sync ? when(stamp.last_sync) : "never"}</td>
								<td data-label="Result">
									{stamp.last_error ? <span class="error-text">{stamp.last_error}</span> : null}
									{stamp.counts ? (
										<div>{`${stamp.counts.created} created, ${stamp.counts.updated} updated, ${stamp.counts.cancelled} cancelled`}</div>
									) : null}
								</td>
								<td>
									<Button
										onClick={() => void syncNow(calendar.id)}
										busy={syncing === calendar.id}
										disabled={!calendar.enabled}
										label={`Sync ${calendar.name} now`}
									>
										Sync now
									</Button>
								</td>
							</tr>
						))}
					</tbody>
				</table>
			) : null}
			<p class="muted">Connect or change calendars in the API (POST /user/calendars); a synced calendar's events appear under Plans.</p>
		</section>
	);
}
