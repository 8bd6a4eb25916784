import { render } from "preact";
import "./app.css";
import { useRoute } from "./route";

/** The shell: sign-in, navigation, and one page per hash route (docs/dashboard.md). */
function App() {
	const route = useRoute();
	return (
		<main>
			<h1>meetbot</h1>
			<p>{route.parts.join("/") || "meetings"}</p>
		</main>
	);
}

const root = document.getElementById("app");
if (root) render(<App />, root);
