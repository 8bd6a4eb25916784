/**
 * Join health (docs/dashboard.md#join-health): per platform, over the last hour and the last
 * day, how bots' joins ended, worst first, so an operator sees a platform's pages drift within
 * minutes. The figures are the operator's: the page reads them with the deployment's metrics
 * token (api.ts `metricsToken`), never with the signed-in key, and reads them again every minute.
 */

import { UnauthorizedError } from "@meetbot/client";
import { useEffect, useState } from "preact/hooks";
import { metricsToken, operatorApi } from "../api";
import { admissionWords, notCountedWords, rateWords, worstFirst } from "../join-health-words";
import { platformWords } from "../meeting-words";
import type { JoinHealth, PlatformJoinHealth } from "../types";
import { Button, ErrorBanner, TextField, useResource, when } from "../ui";
import { causeWords, reasonWords, stepWords } from "../words";

const REFRESH_MS = 60_000;
const WINDOW_NAMES: Record<JoinHealth["windows"][number]["window"], string> = { "1h": "Last hour", "24h": "Last day" };

export function JoinHealthPage() {
	const [token, setToken] = useState(() => metricsToken.get());
	const [refusal, setRefusal] = useState<unknown>(null);
	return (
		<>
			<h1>Join health</h1>
			<p>
				Per platform, how bots' joins ended over the last hour and the last day: the share admitted, the time to admission, and where failed
				joins stopped. Joins the fleet ended (no bot host, a host lost) and meetings stopped before admission are not counted as attempts.
			</p>
			{token ? (
				<Figures
					token={token}
					onForget={(why) => {
						metricsToken.forget();
						setRefusal(why);
						setToken(null);
					}}
				/>
			) : (
				<TokenForm
					refusal={refusal}
					onToken={(entered) => {
						metricsToken.set(entered);
						setRefusal(null);
						setToken(entered);
					}}
				/>
			)}
		</>
	);
}

function TokenForm(props: { refusal: unknown; onToken: (token: string) => void }) {
	const [value, setValue] = useState("");
	const [error, setError] = useState<unknown>(null);
	function submit(event: Event) {
		event.preventDefault();
		const trimmed = value.trim();
		if (!trimmed) return setError(new Error("Enter the metrics token."));
		props.onToken(trimmed);
	}
	return (
		<form onSubmit={submit} class="panel" noValidate>
			<TextField
				label="Metrics token"
				type="password"
				name="metrics_token"
				autoComplete="off"
				value={value}
				onValue={setValue}
				required
				hint="The deployment's FLEET_METRICS_TOKEN. Kept in this tab only (session storage) and sent only to the join health route."
			/>
			<ErrorBanner error={error ?? props.refusal} label={error ? undefined : "The metrics token was refused"} />
			<div class="actions">
				<Button type="submit" variant="primary">
					Show join health
				</Button>
			</div>
		</form>
	);
}

function Figures(props: { token: string; onForget: (why: unknown) => void }) {
	const health = useResource(async (signal) => operatorApi(signal).joinHealth(), props.token);
	const { reload, error } = health;
	useEffect(() => {
		const timer = setInterval(reload, REFRESH_MS);
		return () => clearInterval(timer);
	}, [reload]);
	useEffect(() => {
		// A refused token is forgotten: the form asks for it again, with the API's reason.
		if (error instanceof UnauthorizedError) props.onForget(error);
	}, [error]);
	return (
		<>
			<div class="actions">
				<Button onClick={reload} busy={health.loading}>
					Refresh
				</Button>
				<Button onClick={() => props.onForget(null)}>Forget the metrics token</Button>
			</div>
			<ErrorBanner error={error} />
			{health.data ? (
				<>
					<p class="muted">
						Updated <time dateTime={health.data.generated_at}>{when(health.data.generated_at)}</time>; read again every minute.
					</p>
					{health.data.windows.map((window) => (
						<WindowSection key={window.window} window={window} />
					))}
				</>
			) : null}
		</>
	);
}

function WindowSection(props: { window: JoinHealth["windows"][number] }) {
	const { window } = props;
	const name = WINDOW_NAMES[window.window];
	const platforms = worstFirst(window.platforms);
	const headingId = `join-health-${window.window}`;
	return (
		<section aria-labelledby={headingId} class="join-health" data-window={window.window}>
			<h2 id={headingId}>{name}</h2>
			<p class="muted">
				Since <time dateTime={window.since}>{when(window.since)}</time>
			</p>
			{platforms.every((p) => p.attempts === 0) ? (
				<p data-testid="no-data">No data: no bot's join reached an outcome on any platform in this window.</p>
			) : null}
			<table class="table">
				<caption class="visually-hidden">{name}: each platform, worst first</caption>
				<thead>
					<tr>
						<th scope="col">Platform</th>
						<th scope="col">Success rate</th>
						<th scope="col">Joins</th>
						<th scope="col">Time to admission</th>
						<th scope="col">Not counted</th>
					</tr>
				</thead>
				<tbody>
					{platforms.map((p) => (
						<tr key={p.platform} data-platform={p.platform}>
							<th scope="row">{platformWords(p.platform)}</th>
							<td data-label="Success rate">{rateWords(p.success_rate)}</td>
							<td data-label="Joins">{p.attempts === 0 ? "no joins" : `${p.joined} of ${p.attempts} admitted`}</td>
							<td data-label="Time to admission">{admissionWords(p.admission_seconds)}</td>
							<td data-label="Not counted">{notCountedWords(p) ?? "—"}</td>
						</tr>
					))}
				</tbody>
			</table>
			{platforms
				.filter((p) => p.failures.length > 0)
				.map((p) => (
					<Failures key={p.platform} platform={p} window={name} />
				))}
		</section>
	);
}

function Failures(props: { platform: PlatformJoinHealth; window: string }) {
	const name = platformWords(props.platform.platform);
	return (
		<table class="table" data-failures={props.platform.platform}>
			<caption>
				{name}: failed joins, most first ({props.window.toLowerCase()})
			</caption>
			<thead>
				<tr>
					<th scope="col">Reason</th>
					<th scope="col">Cause</th>
					<th scope="col">Stopped at</th>
					<th scope="col">Joins</th>
				</tr>
			</thead>
			<tbody>
				{props.platform.failures.map((row) => (
					<tr key={`${row.reason}-${row.cause}-${row.step}`}>
						<td data-label="Reason">{reasonWords(row.reason) ?? "no reason given"}</td>
						<td data-label="Cause">{causeWords(row.cause) ?? "—"}</td>
						<td data-label="Stopped at">{stepWords(row.step)}</td>
						<td data-label="Joins">{row.count}</td>
					</tr>
				))}
			</tbody>
		</table>
	);
}
