import type { Route } from "../route";

/** `#/agent/...`: chat, sessions, routines, workspace, copilot (docs/dashboard.md#agent). */
export function AgentPage(_props: { route: Route }) {
	return <h2>Agent</h2>;
}
