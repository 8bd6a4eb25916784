import { render } from "preact";
import "./app.css";
import { AgentPage } from "./pages/agent";
import { SettingsPage } from "./pages/settings";
import { useRoute } from "./route";

/** The shell: sign-in, navigation, and one page per hash route (docs/dashboard.md). */
function App() {
	const route = useRoute();
	switch (route.parts[0]) {
		case "settings":
			return <SettingsPage route={route} />;
		case "agent":
			return <AgentPage route={route} />;
		default:
			return <h2>Meetings</h2>;
	}
}

const root = document.getElementById("app");
if (root) render(<App />, root);
