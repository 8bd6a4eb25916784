import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import "./app.css";
import { UnauthorizedError } from "@meetbot/client";
import { api, onUnauthorized, refusalText, session } from "./api";
import { type FeedState, liveFeed, useFeedState } from "./live";
import { MeContext } from "./me";
import { AgentPage } from "./pages/agent";
import { CalendarsPage } from "./pages/calendars";
import { JoinHealthPage } from "./pages/join-health";
import { MeetingPage } from "./pages/meeting";
import { MeetingsPage } from "./pages/meetings";
import { SearchBox, SearchPage } from "./pages/search";
import { SettingsPage } from "./pages/settings";
import { SignInPage } from "./pages/sign-in";
import { UsagePage } from "./pages/usage";
import { type Route, useRoute } from "./route";
import type { Me } from "./types";
import { Button, ErrorBanner } from "./ui";

/** The shell: sign-in, navigation, and one page per hash route (docs/dashboard.md). */
function App() {
	const [me, setMe] = useState<Me | null>(null);
	// A key already in this tab (a reload) is checked again before any page shows.
	const [checking, setChecking] = useState(() => session.key() !== null);
	const [signedOutReason, setSignedOutReason] = useState<string | null>(null);
	const [startupError, setStartupError] = useState<unknown>(null);

	useEffect(() => {
		if (!checking) return;
		api.auth.me().then(
			(found) => {
				setMe(found);
				setChecking(false);
			},
			(err: unknown) => {
				if (err instanceof UnauthorizedError) {
					session.signOut();
					setSignedOutReason(`Signed out: ${refusalText(err)}`);
				} else setStartupError(err);
				setChecking(false);
			},
		);
	}, [checking]);

	useEffect(() => {
		if (!me) return;
		liveFeed.start();
		// A key revoked or expired while signed in ends the session with the API's reason.
		onUnauthorized((detail) => {
			// The first refusal's reason stands; calls that end as the pages unmount say nothing more.
			onUnauthorized(() => undefined);
			liveFeed.stop();
			session.signOut();
			setSignedOutReason(`Signed out: ${detail}`);
			setMe(null);
		});
		return () => {
			onUnauthorized(() => undefined);
			liveFeed.stop();
		};
	}, [me]);

	async function signOut() {
		// Revokes this key's outstanding /ws tickets; the key leaves the tab either way.
		try {
			await api.auth.revokeTickets();
		} catch {
			// best effort: signing out must not depend on the network
		}
		liveFeed.stop();
		session.signOut();
		setSignedOutReason("You are signed out.");
		setMe(null);
	}

	if (checking) return <p class="muted">Checking your key…</p>;
	if (!me)
		return (
			<>
				<ErrorBanner error={startupError} />
				<SignInPage
					reason={signedOutReason}
					onSignedIn={(found) => {
						setStartupError(null);
						setMe(found);
					}}
				/>
			</>
		);
	return <SignedIn me={me} onSignOut={signOut} />;
}

const NAV: [string, string][] = [
	["meetings", "Meetings"],
	["calendars", "Calendars"],
	["search", "Search"],
	["settings", "Settings"],
	["agent", "Agent"],
	["usage", "Usage"],
	["join-health", "Join health"],
];

function SignedIn(props: { me: Me; onSignOut: () => void }) {
	const route = useRoute();
	const main = useRef<HTMLElement>(null);
	const section = route.parts[0] ?? "meetings";
	const path = route.parts.join("/");
	const first = useRef(true);

	// After a route change, focus moves to the new page's heading (or the main region), so
	// keyboard and screen-reader users start at the new content rather than the old link.
	useEffect(() => {
		if (first.current) {
			first.current = false;
			return;
		}
		const target = main.current?.querySelector<HTMLElement>("h1, h2") ?? main.current;
		if (target && !target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
		target?.focus();
	}, [path]);

	return (
		<>
			{/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link by convention; the hash belongs to the router, so the click moves focus instead */}
			<a
				class="skip-link"
				href="#main"
				onClick={(event) => {
					// The hash is the router's: move focus without touching it.
					event.preventDefault();
					main.current?.focus();
				}}
			>
				Skip to main content
			</a>
			<header class="site-header">
				<p class="brand">meetbot</p>
				<nav class="site-nav" aria-label="Main">
					<ul>
						{NAV.map(([target, label]) => (
							<li key={target}>
								<a href={`#/${target}`} aria-current={section === target ? "page" : undefined}>
									{label}
								</a>
							</li>
						))}
						<li>
							{/* The interactive API reference: static pages beside the dashboard, outside its hash routes. */}
							<a href="/docs/">API reference</a>
						</li>
					</ul>
				</nav>
				<SearchBox route={route} />
				<div class="account">
					<FeedIndicator />
					<span class="account-email">{props.me.email}</span>
					<Button onClick={props.onSignOut}>Sign out</Button>
				</div>
			</header>
			<main id="main" ref={main} tabIndex={-1}>
				{props.me.scopes.some((scope) => scope === "bot" || scope === "tx") ? (
					<MeContext.Provider value={props.me}>
						<Page route={route} />
					</MeContext.Provider>
				) : (
					<>
						<h1>This key cannot read meetings</h1>
						<p>
							It has only the browser scope, which signs in and nothing else. Sign out and sign in with a key that has the bot or tx scope.
						</p>
					</>
				)}
			</main>
		</>
	);
}

function Page(props: { route: Route }) {
	const { route } = props;
	switch (route.parts[0]) {
		case undefined:
		case "meetings":
			return route.parts[1] ? <MeetingPage key={route.parts[1]} id={route.parts[1]} /> : <MeetingsPage route={route} />;
		case "calendars":
			return <CalendarsPage route={route} />;
		case "search":
			return <SearchPage route={route} />;
		case "settings":
			return <SettingsPage route={route} />;
		case "agent":
			return <AgentPage route={route} />;
		case "join-health":
			return <JoinHealthPage />;
		case "usage":
			return <UsagePage route={route} />;
		default:
			return (
				<>
					<h1>Page not found</h1>
					<p>
						<a href="#/meetings">Go to your meetings</a>
					</p>
				</>
			);
	}
}

const FEED_WORDS: Record<FeedState, string> = {
	connecting: "Live updates: connecting",
	live: "Live updates: on",
	retrying: "Live updates: reconnecting",
	off: "Live updates: off",
};

/** Whether `/ws` is connected, as text (a status region, so a drop is announced). */
function FeedIndicator() {
	const state = useFeedState();
	return (
		<span class="feed-state" data-state={state} role="status">
			{FEED_WORDS[state]}
		</span>
	);
}

const root = document.getElementById("app");
if (root) render(<App />, root);
