import { useEffect, useState } from "preact/hooks";
import { PLANNED_STATUSES } from "../../../src/meetings/statuses";
import { isPlatform } from "../../../src/platforms/index.ts";
import { abortable, api } from "../api";
import { liveFeed } from "../live";
import { useCanAct } from "../me";
import { feedRefs } from "../meeting-feed";
import { meetingTitle, platformWords } from "../meeting-words";
import { byScheduledTime, planTime } from "../plan-time";
import type { Meeting } from "../types";
import { CheckboxField, ErrorBanner, StatusBadge, useResource } from "../ui";

/** A plan's auto-join state in words: whether, and when, a bot joins by itself. */
export function autoJoinWords(plan: Meeting): string {
	if (!isPlatform(plan.platform) || !plan.native_meeting_id) return "Cannot auto-join: no meeting link";
	if (!plan.auto_join) return "Auto-join off";
	if (plan.status === "scheduled") return "Joins by itself at its time";
	return "Auto-join on, but no time is set";
}

/**
 * Plans (idle and scheduled meetings), soonest first: when each is, in the reader's time; its
 * auto-join state, which can be switched here; and the calendars that planned it.
 */
export function PlansSection(props: { round: number }) {
	const plans = useResource(
		(signal) =>
			abortable(signal)
				.meetings.list({ status: PLANNED_STATUSES.join(","), limit: 100 })
				.then((r) => byScheduledTime(r.meetings)),
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
							<th scope="col">When</th>
							<th scope="col">Meeting</th>
							<th scope="col">Status</th>
							<th scope="col">Auto-join</th>
							<th scope="col">Calendar</th>
						</tr>
					</thead>
					<tbody>
						{list.map((plan) => (
							<tr key={plan.id} data-meeting-id={plan.id}>
								<td data-label="When">
									<time dateTime={plan.data?.scheduled_at ?? undefined}>{planTime(plan.data?.scheduled_at) ?? "No time set"}</time>
								</td>
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
								<td data-label="Calendar">{(plan.data?.calendar_sources ?? []).map((c) => c.name).join(", ") || "Added by hand"}</td>
							</tr>
						))}
					</tbody>
				</table>
			) : null}
		</section>
	);
}
