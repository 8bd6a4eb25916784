import type { QueryOf } from "@meetbot/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { PLANNED_STATUSES } from "../../../src/meetings/statuses";
import { PLATFORM_CHOICES } from "../../../src/platforms/index.ts";
import { abortable } from "../api";
import { liveFeed } from "../live";
import { useCanAct } from "../me";
import { feedRefs, withStatusFrame } from "../meeting-feed";
import { isLive, LIVE_STATUSES, meetingTitle, platformWords } from "../meeting-words";
import { placementOf } from "../placement-words";
import { navigate, type Route } from "../route";
import type { Meeting } from "../types";
import { Button, ErrorBanner, SelectField, StatusBadge, useResource, when } from "../ui";
import { reasonWords } from "../words";
import { PlansSection } from "./plans";
import { SendBotForm } from "./send-bot";

const PAGE_SIZE = 20;

const STATUS_FILTERS: [string, string][] = [
	["", "Any status"],
	[LIVE_STATUSES.join(","), "Live"],
	[PLANNED_STATUSES.join(","), "Planned"],
	["completed", "Completed"],
	["failed", "Failed"],
];

const PLATFORM_FILTERS: [string, string][] = [
	["", "Any platform"],
	...PLATFORM_CHOICES.map(([code, name]): [string, string] => [code, name]),
];

/** `#/meetings`: send a bot, the meetings with live status, plans, calendars. */
export function MeetingsPage(props: { route: Route }) {
	const status = props.route.query.get("status") ?? "";
	const platform = props.route.query.get("platform") ?? "";
	const offset = Math.max(0, Number.parseInt(props.route.query.get("offset") ?? "0", 10) || 0);

	const query: QueryOf<"/meetings", "get"> = {
		limit: PAGE_SIZE,
		offset,
		...(status ? { status } : {}),
		// A platform typed into the address is the API's to judge (its 422 is shown).
		...(platform ? { platform: platform as QueryOf<"/meetings", "get">["platform"] } : {}),
	};
	const list = useResource(
		(signal) =>
			abortable(signal)
				.meetings.list(query)
				.then((r) => r.meetings),
		JSON.stringify(query),
	);

	const canAct = useCanAct();
	const meetings = list.data ?? [];
	const [plansRound, setPlansRound] = useState(0);
	const refsKey = feedRefs(meetings)
		.map((r) => `${r.platform}/${r.native_id}`)
		.join(" ");
	// The listener reads the list through a ref: the socket outlives this render.
	const current = useRef(meetings);
	current.current = meetings;
	const statusFilter = useRef(status);
	statusFilter.current = status;
	// A frame about a meeting this page does not list (a new plan, a bot sent elsewhere) reloads it, at most every 2 s.
	const reloadTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
	// Re-watches exactly when the set of listed links changes.
	useEffect(() => {
		const stop = liveFeed.watch(
			feedRefs(meetings),
			(frame) => {
				if (frame.type !== "meeting.status") return;
				const updated = withStatusFrame(current.current, frame);
				// A meeting that left the status filter (a live one that ended) goes with a reload.
				const moved = frame.payload.status;
				const fits = !statusFilter.current || statusFilter.current.split(",").includes(moved);
				if (updated && fits) list.set(() => updated);
				else if (reloadTimer.current === undefined) {
					reloadTimer.current = setTimeout(() => {
						reloadTimer.current = undefined;
						list.reload();
					}, 2000);
				}
			},
			// Steps sent before the feed watched these meetings reached nobody: read the list again.
			() => list.reload(),
		);
		return () => {
			stop();
			clearTimeout(reloadTimer.current);
			reloadTimer.current = undefined;
		};
	}, [refsKey]);

	function setFilter(name: "status" | "platform", value: string) {
		const next = new URLSearchParams(props.route.query);
		if (value) next.set(name, value);
		else next.delete(name);
		next.delete("offset");
		const qs = next.toString();
		navigate(`/meetings${qs ? `?${qs}` : ""}`);
	}

	function page(delta: number) {
		const next = new URLSearchParams(props.route.query);
		next.set("offset", String(Math.max(0, offset + delta * PAGE_SIZE)));
		navigate(`/meetings?${next}`);
	}

	return (
		<>
			<h1>Meetings</h1>
			{canAct ? (
				<SendBotForm
					onSent={() => {
						list.reload();
						setPlansRound((n) => n + 1);
					}}
				/>
			) : (
				<p class="notice-box">This key reads only: sending and stopping bots needs a key with the bot scope.</p>
			)}
			<section aria-labelledby="meeting-list-heading">
				<h2 id="meeting-list-heading">Your meetings</h2>
				<form class="form-row" aria-label="Filter meetings" onSubmit={(e) => e.preventDefault()}>
					<SelectField label="Status" name="status" value={status} onValue={(v) => setFilter("status", v)} options={STATUS_FILTERS} />
					<SelectField
						label="Platform"
						name="platform"
						value={platform}
						onValue={(v) => setFilter("platform", v)}
						options={PLATFORM_FILTERS}
					/>
				</form>
				<ErrorBanner error={list.error} />
				{list.loading && !list.data ? <p class="muted">Loading meetings…</p> : null}
				{list.data && meetings.length === 0 ? (
					<p>No meetings{status || platform ? " match these filters" : " yet: send a bot above"}.</p>
				) : null}
				{meetings.length > 0 ? <MeetingTable meetings={meetings} /> : null}
				<nav class="actions" aria-label="Pages of meetings">
					<Button onClick={() => page(-1)} disabled={offset === 0}>
						Previous page
					</Button>
					<span class="muted">{meetings.length > 0 ? `Meetings ${offset + 1}–${offset + meetings.length}` : ""}</span>
					<Button onClick={() => page(1)} disabled={meetings.length < PAGE_SIZE}>
						Next page
					</Button>
				</nav>
			</section>
			<PlansSection round={plansRound} />
			<p>
				<a href="#/calendars">Calendars</a>: add, sync and remove the calendars whose meetings become plans.
			</p>
		</>
	);
}

function MeetingTable(props: { meetings: Meeting[] }) {
	return (
		<table class="table" aria-label="Meetings">
			<thead>
				<tr>
					<th scope="col">Meeting</th>
					<th scope="col">Platform</th>
					<th scope="col">Status</th>
					<th scope="col">When</th>
					<th scope="col">Outcome</th>
				</tr>
			</thead>
			<tbody>
				{props.meetings.map((m) => (
					<tr key={m.id} data-meeting-id={m.id}>
						<td data-label="Meeting">
							<a href={`#/meetings/${m.id}`}>{meetingTitle(m)}</a>
						</td>
						<td data-label="Platform">{platformWords(m.platform)}</td>
						<td data-label="Status">
							<StatusBadge status={m.status} />
						</td>
						{/* A plan is listed at the time it is for, not when it was made. */}
						<td data-label="When">{when(m.start_time ?? m.data?.scheduled_at ?? m.created_at)}</td>
						<td data-label="Outcome">
							{isLive(m.status) && placementOf(m)
								? `Waiting for a bot host: ${placementOf(m)?.detail}`
								: (reasonWords(m.completion_reason ?? m.data?.completion_reason, m.data?.completion_cause) ?? "")}
						</td>
					</tr>
				))}
			</tbody>
		</table>
	);
}
