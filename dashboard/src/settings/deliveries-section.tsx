import { useState } from "preact/hooks";
import { abortable } from "../api";
import { Button, ErrorBanner, useResource, when } from "../ui";

/** Rows a page shows: the history keeps an account's newest 100. */
const PAGE = 20;

/**
 * The webhook attempts, newest first, a page at a time (docs/webhooks.md#delivery-history);
 * `reload` changes after a save or a test, which goes back to the newest page.
 */
export function DeliveriesSection({ reload }: { reload: number }) {
	// The cursors of the pages before this one; the last is this page's own (none: the newest).
	const [cursors, setCursors] = useState<{ reload: number; stack: string[] }>({ reload, stack: [] });
	const stack = cursors.reload === reload ? cursors.stack : [];
	const cursor = stack.at(-1);
	const list = useResource(
		(signal) => abortable(signal).user.webhook.deliveries({ limit: PAGE, ...(cursor ? { cursor } : {}) }),
		`${reload}:${cursor ?? ""}`,
	);
	const rows = list.data?.deliveries ?? null;
	const next = list.data?.next_cursor ?? null;
	const older = () => next && setCursors({ reload, stack: [...stack, next] });
	const newer = () => setCursors({ reload, stack: stack.slice(0, -1) });

	return (
		<section aria-labelledby="deliveries-heading" class="panel settings-card settings-wide">
			<div class="settings-row">
				<h2 id="deliveries-heading">Delivery history</h2>
				<Button onClick={list.reload} busy={list.loading}>
					Refresh deliveries
				</Button>
			</div>
			<ErrorBanner error={list.error} />
			{rows && rows.length === 0 && <p>No deliveries yet.</p>}
			{rows && rows.length > 0 && (
				<div class="table-scroll">
					<table class="table deliveries">
						<caption class="visually-hidden">Webhook deliveries, newest first</caption>
						<thead>
							<tr>
								<th scope="col">Time</th>
								<th scope="col">Event</th>
								<th scope="col">Status</th>
								<th scope="col">Attempt</th>
								<th scope="col">Response code</th>
								<th scope="col">Host</th>
								<th scope="col">Meeting</th>
							</tr>
						</thead>
						<tbody>
							{rows.map((row) => (
								<tr key={`${row.event_id}-${row.attempt}-${row.created_at}`}>
									<td data-label="Time">
										<time dateTime={row.created_at}>{when(row.created_at)}</time>
									</td>
									<td data-label="Event">{row.event_type}</td>
									<td data-label="Status">
										<span class={`outcome outcome-${row.outcome}`}>{row.outcome}</span>
									</td>
									<td data-label="Attempt">{row.attempt}</td>
									<td data-label="Response code">{row.status_code ?? "no answer"}</td>
									<td data-label="Host">{row.target_host}</td>
									<td data-label="Meeting">
										{row.meeting_id === null ? "" : <a href={`#/meetings/${row.meeting_id}`}>Open the meeting</a>}
									</td>
								</tr>
							))}
						</tbody>
					</table>
				</div>
			)}
			{(stack.length > 0 || next) && (
				<nav class="actions" aria-label="Delivery pages">
					<Button onClick={newer} disabled={stack.length === 0}>
						Newer deliveries
					</Button>
					<span>Page {stack.length + 1}</span>
					<Button onClick={older} disabled={!next}>
						Older deliveries
					</Button>
				</nav>
			)}
		</section>
	);
}
