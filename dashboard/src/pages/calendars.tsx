import { useState } from "preact/hooks";
import { abortable } from "../api";
import { type CalendarView, calendarRefusal, SIGN_IN_RETURN_KEYS, type SignInReturn, signInReturn } from "../calendar-words";
import { useCanAct } from "../me";
import type { Route } from "../route";
import { ErrorBanner, Notice, useResource } from "../ui";
import { AddIcsCalendarForm, SignInButtons } from "./calendar-add";
import { type CalendarRow, CalendarTable } from "./calendar-list";
import { PlansSection } from "./plans";

/**
 * `#/calendars` (docs/dashboard.md#calendars): the account's calendar connections with their
 * last sync; adding an ICS calendar or signing in to one; syncing, disabling and removing; and
 * the plans they make, which appear as soon as a calendar is added (it syncs at once).
 */
export function CalendarsPage(props: { route: Route }) {
	const canAct = useCanAct();
	const [plansRound, setPlansRound] = useState(0);
	const [notice, setNotice] = useState<string | null>(null);
	// The page's query is read once (and then cleared); the hash's follows the route.
	const [pageReturn] = useState(readPageReturn);
	const returned = signInReturn(props.route.query) ?? pageReturn;
	const calendars = useResource(async (signal): Promise<CalendarRow[]> => {
		const { calendars: found } = await abortable(signal).calendars.list();
		return Promise.all(
			found.map(async (calendar: CalendarView) => ({
				calendar,
				stamp: await abortable(signal)
					.calendars.lastSync(calendar.id)
					.catch(() => ({})),
			})),
		);
	}, "calendars");

	function changed(words: string, plansChanged: boolean) {
		setNotice(words);
		calendars.reload();
		if (plansChanged) setPlansRound((n) => n + 1);
	}

	const rows = calendars.data ?? [];
	const connected = returned && "connected" in returned ? rows.find((row) => row.calendar.id === returned.connected) : undefined;
	return (
		<>
			<h1>Calendars</h1>
			{returned && "error" in returned ? <ErrorBanner error={returned.error} /> : null}
			{returned && "connected" in returned ? (
				<p class="notice-box" role="status">
					{connected ? `Connected: ${connected.calendar.name}.` : "Connected."}
				</p>
			) : null}
			<Notice text={notice} />
			<section aria-labelledby="calendar-list-heading">
				<h2 id="calendar-list-heading">Your calendars</h2>
				<ErrorBanner error={calendars.error ? calendarRefusal(calendars.error) : null} />
				{calendars.loading && !calendars.data ? <p class="muted">Loading calendars…</p> : null}
				{calendars.data && rows.length === 0 ? <p>No calendars yet: add one below, and its meetings become plans a bot joins.</p> : null}
				{rows.length > 0 ? <CalendarTable rows={rows} canAct={canAct} onChanged={(c) => changed(c.words, c.plansChanged)} /> : null}
			</section>
			{canAct ? (
				<>
					<SignInButtons />
					<AddIcsCalendarForm onAdded={(words) => changed(words, true)} />
				</>
			) : (
				<p class="notice-box">This key reads only: adding and changing calendars needs a key with the bot scope.</p>
			)}
			<PlansSection round={plansRound} />
		</>
	);
}

/**
 * What a calendar sign-in left in the page's query (`/?calendar=<id>#/calendars`, or an error
 * marker), read once and then taken out of the address, so a reload does not say it again.
 */
function readPageReturn(): SignInReturn {
	const page = new URLSearchParams(location.search);
	const found = signInReturn(page);
	if (found) {
		for (const key of SIGN_IN_RETURN_KEYS) page.delete(key);
		const rest = page.toString();
		history.replaceState(history.state, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
	}
	return found;
}
