import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { configuredProviders, startSignIn } from "../calendar-sign-in";
import { addedWords, type CalendarProvider, calendarRefusal, PROVIDER_WORDS } from "../calendar-words";
import { Button, CheckboxField, ErrorBanner, FieldGroup, TextField } from "../ui";

/**
 * "Add an ICS calendar": name, secret ICS address, auto-join and bot name. The connection
 * syncs at once (docs/api.md#calendars), so `onAdded` gets the line saying what that sync did.
 */
export function AddIcsCalendarForm(props: { onAdded: (words: string) => void }) {
	const [name, setName] = useState("");
	const [icsUrl, setIcsUrl] = useState("");
	const [autoJoin, setAutoJoin] = useState(true);
	const [botName, setBotName] = useState("");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);

	async function add(event: Event) {
		event.preventDefault();
		setError(null);
		setBusy(true);
		try {
			const added = await api.calendars.connect({
				name,
				ics_url: icsUrl.trim(),
				auto_join: autoJoin,
				...(botName.trim() ? { bot_name: botName.trim() } : {}),
			});
			setName("");
			setIcsUrl("");
			setBotName("");
			props.onAdded(addedWords(added.name, added.sync));
		} catch (err) {
			setError(calendarRefusal(err));
		} finally {
			setBusy(false);
		}
	}

	return (
		<form class="add-calendar" aria-labelledby="add-calendar-heading" onSubmit={(e) => void add(e)}>
			<h2 id="add-calendar-heading">Add an ICS calendar</h2>
			<ErrorBanner error={error} label="Not added" />
			<FieldGroup legend="Calendar">
				<TextField label="Calendar name" name="name" value={name} onValue={setName} required maxLength={100} />
				<TextField
					label="ICS address"
					name="ics_url"
					type="url"
					value={icsUrl}
					onValue={setIcsUrl}
					required
					autoComplete="off"
					hint="The calendar's secret iCal address, https://…: in Google Calendar, Settings, your calendar, “Secret address in iCal format”; in Outlook, Settings, Shared calendars, Publish a calendar, the ICS link. It is kept sealed and shown only shortened."
				/>
				<CheckboxField label="Join meetings by itself" name="auto_join" checked={autoJoin} onChecked={setAutoJoin} />
				<TextField
					label="Bot name"
					name="bot_name"
					value={botName}
					onValue={setBotName}
					maxLength={100}
					hint="The name the bot joins with; empty: your usual bot name."
				/>
			</FieldGroup>
			<Button type="submit" variant="primary" busy={busy}>
				Add calendar
			</Button>
		</form>
	);
}

/**
 * "Sign in with Google / Microsoft", one button per provider the deployment has a client for;
 * none on a deployment without calendar sign-in. A button asks for the provider's consent page
 * and goes there; the provider sends the browser back to the Calendars page.
 */
export function SignInButtons() {
	const [providers, setProviders] = useState<CalendarProvider[]>([]);
	const [error, setError] = useState<string | null>(null);
	const [starting, setStarting] = useState<CalendarProvider | null>(null);

	useEffect(() => {
		let live = true;
		configuredProviders().then(
			(found) => live && setProviders(found),
			(err: unknown) => live && setError(`Calendar sign-in is not available now: ${calendarRefusal(err)}`),
		);
		return () => {
			live = false;
		};
	}, []);

	async function signIn(provider: CalendarProvider) {
		setError(null);
		setStarting(provider);
		try {
			await startSignIn(provider);
		} catch (err) {
			setError(calendarRefusal(err));
			setStarting(null);
		}
	}

	if (providers.length === 0 && !error) return null;
	return (
		<section class="calendar-sign-in" aria-labelledby="sign-in-heading">
			<h2 id="sign-in-heading">Connect by signing in</h2>
			<ErrorBanner error={error} />
			<p>Sign in to your calendar account: no address to copy, and its meetings are planned as they change.</p>
			<div class="actions">
				{providers.map((provider) => (
					<Button key={provider} busy={starting === provider} onClick={() => void signIn(provider)}>
						{`Sign in with ${PROVIDER_WORDS[provider]}`}
					</Button>
				))}
			</div>
		</section>
	);
}
