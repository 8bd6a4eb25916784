import { useEffect, useRef, useState } from "preact/hooks";
import { api, session } from "../api";
import type { Me } from "../types";
import { Button, ErrorBanner, TextField } from "../ui";

/**
 * Sign in with an API key: the key is put in this tab's sessionStorage (session.signIn) and
 * checked with GET /auth/me; a refused key is removed again and the API's detail is shown.
 */
export function SignInPage(props: { onSignedIn: (me: Me) => void; reason?: string | null }) {
	const [key, setKey] = useState("");
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const heading = useRef<HTMLHeadingElement>(null);
	useEffect(() => heading.current?.focus(), []);

	async function submit(event: Event) {
		event.preventDefault();
		const trimmed = key.trim();
		if (!trimmed) return setError(new Error("Enter your API key."));
		setBusy(true);
		setError(null);
		session.signIn(trimmed);
		try {
			const me = await api.auth.me();
			setKey("");
			props.onSignedIn(me);
		} catch (err) {
			session.signOut();
			setError(err);
			setBusy(false);
		}
	}

	return (
		<main id="main" class="sign-in">
			<h1 ref={heading} tabIndex={-1}>
				Sign in to meetbot
			</h1>
			{props.reason ? <p class="muted">{props.reason}</p> : null}
			<form onSubmit={submit} class="panel" noValidate>
				<TextField
					label="API key"
					type="password"
					name="api_key"
					autoComplete="current-password"
					value={key}
					onValue={setKey}
					required
					hint="Kept in this tab only (session storage); closing the tab signs you out."
				/>
				<ErrorBanner error={error} />
				<div class="actions">
					<Button type="submit" variant="primary" busy={busy}>
						Sign in
					</Button>
				</div>
			</form>
		</main>
	);
}
