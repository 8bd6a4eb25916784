/**
 * `#/usage` (docs/dashboard.md#usage): what the account used over a range of UTC days (this month
 * so far unless the address names one): its caps and how close it is to each, the totals, a
 * table of days with bars, and the meetings, each linking to its page. The figures are the API's
 * (GET /usage, GET /usage/meetings); live bots count up to the moment the page read them.
 */

import { useState } from "preact/hooks";
import { abortable } from "../api";
import { meetingTitle, platformWords } from "../meeting-words";
import { navigate, type Route } from "../route";
import type { MeetingUsage, SetCap, UsageCaps, UsageReport } from "../types";
import { Button, bytes, ErrorBanner, StatusBadge, TextField, useResource, when } from "../ui";
import { type CapKind, capFigures, capName, capOutlook, capShare, minutesWords } from "../usage-words";

const PAGE_SIZE = 50;
const CAP_KINDS: CapKind[] = ["bot_minutes_per_day", "bot_minutes_per_month", "storage_bytes"];

export function UsagePage(props: { route: Route }) {
	const from = props.route.query.get("from") ?? "";
	const to = props.route.query.get("to") ?? "";
	const offset = Math.max(0, Number.parseInt(props.route.query.get("offset") ?? "0", 10) || 0);
	const range = { ...(from ? { from } : {}), ...(to ? { to } : {}) };
	const report = useResource((signal) => abortable(signal).usage.get(range), JSON.stringify(range));
	const meetings = useResource(
		(signal) => abortable(signal).usage.meetings({ ...range, limit: PAGE_SIZE, offset }),
		JSON.stringify({ ...range, offset }),
	);

	function go(next: { from?: string; to?: string; offset?: number }) {
		const query = new URLSearchParams();
		const f = next.from ?? from;
		const t = next.to ?? to;
		if (f) query.set("from", f);
		if (t) query.set("to", t);
		if (next.offset) query.set("offset", String(next.offset));
		const qs = query.toString();
		navigate(`/usage${qs ? `?${qs}` : ""}`);
	}

	return (
		<>
			<h1>Usage</h1>
			<p>
				What this account used, per day (UTC) and per meeting: minutes bots spent in meetings (from being let in to the end), minutes spent
				joining and waiting to be let in, minutes of audio sent to your transcription endpoint, and recordings stored. Meetings still
				running count up to now.
			</p>
			<RangeForm
				// Filled again once the API says which range it read (this month so far by default).
				key={`${report.data?.from ?? from}/${report.data?.to ?? to}`}
				from={report.data?.from ?? from}
				to={report.data?.to ?? to}
				onRange={(f, t) => go({ from: f, to: t, offset: 0 })}
			/>
			<div class="actions">
				<Button
					onClick={() => {
						report.reload();
						meetings.reload();
					}}
					busy={report.loading}
				>
					Refresh
				</Button>
			</div>
			<ErrorBanner error={report.error} />
			{report.loading && !report.data ? <p class="muted">Loading usage…</p> : null}
			{report.data ? (
				<>
					<p class="muted">
						{report.data.from === report.data.to ? `On ${report.data.from}` : `From ${report.data.from} to ${report.data.to}`} (UTC), read{" "}
						<time dateTime={report.data.generated_at}>{when(report.data.generated_at)}</time>.
					</p>
					<CapsSection caps={report.data.caps} />
					<TotalsSection report={report.data} />
					<DaysSection report={report.data} />
				</>
			) : null}
			<section aria-labelledby="usage-meetings-heading">
				<h2 id="usage-meetings-heading">Per meeting</h2>
				<ErrorBanner error={meetings.error} />
				{meetings.data && meetings.data.total === 0 ? <p>No bot ran in a meeting in this range.</p> : null}
				{meetings.data && meetings.data.meetings.length > 0 ? <MeetingsTable rows={meetings.data.meetings} /> : null}
				{meetings.data && meetings.data.total > PAGE_SIZE ? (
					<nav class="actions" aria-label="Pages of meetings">
						<Button onClick={() => go({ offset: Math.max(0, offset - PAGE_SIZE) })} disabled={offset === 0}>
							Previous page
						</Button>
						<span class="muted">
							Meetings {offset + 1}–{offset + meetings.data.meetings.length} of {meetings.data.total}
						</span>
						<Button onClick={() => go({ offset: offset + PAGE_SIZE })} disabled={offset + PAGE_SIZE >= meetings.data.total}>
							Next page
						</Button>
					</nav>
				) : null}
			</section>
		</>
	);
}

function RangeForm(props: { from: string; to: string; onRange: (from: string, to: string) => void }) {
	const [from, setFrom] = useState(props.from);
	const [to, setTo] = useState(props.to);
	return (
		<form
			class="form-row"
			aria-label="Range of days"
			onSubmit={(event) => {
				event.preventDefault();
				props.onRange(from.trim(), to.trim());
			}}
		>
			<TextField label="From (UTC day)" name="from" type="date" value={from} onValue={setFrom} />
			<TextField label="To (UTC day)" name="to" type="date" value={to} onValue={setTo} />
			<div class="actions">
				<Button type="submit">Show</Button>
			</div>
		</form>
	);
}

function CapsSection(props: { caps: UsageCaps }) {
	const set = CAP_KINDS.flatMap((kind): [CapKind, SetCap][] => {
		const cap = props.caps[kind];
		return cap ? [[kind, cap]] : [];
	});
	return (
		<section aria-labelledby="usage-caps-heading">
			<h2 id="usage-caps-heading">Caps</h2>
			{set.length === 0 ? (
				<p data-testid="no-caps">
					No caps are set on this account. The operator can cap bot minutes per day or per month and the bytes of recordings stored; a cap
					refuses new bots once it is reached.
				</p>
			) : (
				<ul class="usage-caps">
					{set.map(([kind, cap]) => (
						<li key={kind} data-cap={kind} data-reached={cap.used >= cap.limit ? "true" : "false"}>
							<span class="usage-cap-name">{capName(kind)}</span>
							<CapMeter kind={kind} cap={cap} />
							<span>{capFigures(kind, cap)}</span>
							<span class="muted">{capOutlook(kind, cap, when)}</span>
						</li>
					))}
				</ul>
			)}
		</section>
	);
}

/** How full a cap is; a cap of 0 is full from the start. */
function CapMeter(props: { kind: CapKind; cap: SetCap }) {
	const { cap } = props;
	const max = Math.max(cap.limit, cap.used);
	return (
		<meter min={0} max={max || 1} value={max === 0 ? 1 : cap.used} high={cap.limit * 0.8} optimum={0} aria-label={capName(props.kind)}>
			{capShare(cap)}%
		</meter>
	);
}

function TotalsSection(props: { report: UsageReport }) {
	const { totals } = props.report;
	return (
		<section aria-labelledby="usage-totals-heading">
			<h2 id="usage-totals-heading">Totals</h2>
			<dl class="usage-totals">
				<dt>Bot minutes in meetings</dt>
				<dd data-total="bot_minutes">{minutesWords(totals.bot_minutes)}</dd>
				<dt>Joining and waiting to be let in</dt>
				<dd data-total="waiting_minutes">{minutesWords(totals.waiting_minutes)}</dd>
				<dt>Audio sent to transcription</dt>
				<dd data-total="transcription_minutes">{minutesWords(totals.transcription_minutes)}</dd>
				<dt>Meetings</dt>
				<dd data-total="meetings">{totals.meetings}</dd>
				<dt>Recordings stored in this range</dt>
				<dd data-total="storage_bytes_added">{bytes(totals.storage_bytes_added)}</dd>
				<dt>Recordings stored now</dt>
				<dd data-total="storage_bytes">{bytes(props.report.storage_bytes)}</dd>
			</dl>
		</section>
	);
}

function DaysSection(props: { report: UsageReport }) {
	const days = props.report.days;
	const most = Math.max(0.01, ...days.map((d) => d.bot_minutes));
	return (
		<section aria-labelledby="usage-days-heading">
			<h2 id="usage-days-heading">Per day (UTC)</h2>
			<table class="table usage-days">
				<caption class="visually-hidden">Usage per UTC day, oldest first</caption>
				<thead>
					<tr>
						<th scope="col">Day</th>
						<th scope="col">Meetings</th>
						<th scope="col">In meetings</th>
						<th scope="col">Waiting</th>
						<th scope="col">Transcription</th>
						<th scope="col">Stored</th>
					</tr>
				</thead>
				<tbody>
					{days.map((d) => (
						<tr key={d.day} data-day={d.day}>
							<th scope="row">{d.day}</th>
							<td data-label="Meetings">{d.meetings}</td>
							<td data-label="In meetings">
								{d.bot_minutes > 0 ? (
									<span class="usage-bar" aria-hidden="true" style={{ width: `${(d.bot_minutes / most) * 100}%` }} />
								) : null}
								{minutesWords(d.bot_minutes)}
							</td>
							<td data-label="Waiting">{minutesWords(d.waiting_minutes)}</td>
							<td data-label="Transcription">{minutesWords(d.transcription_minutes)}</td>
							<td data-label="Stored">{bytes(d.storage_bytes_added)}</td>
						</tr>
					))}
				</tbody>
			</table>
		</section>
	);
}

function MeetingsTable(props: { rows: MeetingUsage[] }) {
	return (
		<table class="table usage-meetings">
			<caption class="visually-hidden">Each meeting's usage in the range, newest first</caption>
			<thead>
				<tr>
					<th scope="col">Meeting</th>
					<th scope="col">Platform</th>
					<th scope="col">Status</th>
					<th scope="col">In meeting</th>
					<th scope="col">Waiting</th>
					<th scope="col">Transcription</th>
					<th scope="col">Recordings</th>
				</tr>
			</thead>
			<tbody>
				{props.rows.map((m) => (
					<tr key={m.meeting_id} data-meeting-id={m.meeting_id}>
						<td data-label="Meeting">
							<a href={`#/meetings/${m.meeting_id}`}>
								{meetingTitle({ platform: m.platform, native_meeting_id: m.native_meeting_id, data: { title: m.title } })}
							</a>
							<span class="muted"> {when(m.start_time ?? m.joining_at)}</span>
						</td>
						<td data-label="Platform">{platformWords(m.platform)}</td>
						<td data-label="Status">
							<StatusBadge status={m.status} />
							{m.live ? <span class="muted"> counting</span> : null}
						</td>
						<td data-label="In meeting">{minutesWords(m.bot_minutes)}</td>
						<td data-label="Waiting">{minutesWords(m.waiting_minutes)}</td>
						<td data-label="Transcription">{minutesWords(m.transcription_minutes)}</td>
						<td data-label="Recordings">{bytes(m.storage_bytes)}</td>
					</tr>
				))}
			</tbody>
		</table>
	);
}
