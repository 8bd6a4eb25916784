import type { Route } from "../route";

/** `#/settings`: webhook, models, transcription (docs/dashboard.md#settings). */
export function SettingsPage(_props: { route: Route }) {
	return <h2>Settings</h2>;
}
