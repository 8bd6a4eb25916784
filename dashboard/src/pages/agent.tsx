import { ChatPanel } from "../agent/chat";
import { CopilotPanel } from "../agent/copilot";
import { RoutinesPanel } from "../agent/routines";
import { WorkspacePanel } from "../agent/workspace";
import type { Route } from "../route";
import "./settings.css";
import "./agent.css";

const TABS = [
	{ part: "chat", label: "Chat" },
	{ part: "routines", label: "Routines" },
	{ part: "workspace", label: "Workspace" },
	{ part: "copilot", label: "Copilot" },
] as const;

/** `#/agent/...`: chat, sessions, routines, workspace, copilot (docs/dashboard.md#agent). */
export function AgentPage({ route }: { route: Route }) {
	const tab = route.parts[1] ?? "chat";
	const rest = route.parts.slice(2);
	return (
		<div class="agent-page">
			<h1>Agent</h1>
			<nav aria-label="Agent sections" class="agent-tabs">
				<ul>
					{TABS.map(({ part, label }) => (
						<li key={part}>
							<a href={`#/agent/${part}`} aria-current={tab === part ? "page" : undefined}>
								{label}
							</a>
						</li>
					))}
				</ul>
			</nav>
			<AgentSection tab={tab} rest={rest} query={route.query} />
		</div>
	);
}

function AgentSection({ tab, rest, query }: { tab: string; rest: string[]; query: URLSearchParams }) {
	switch (tab) {
		case "chat":
			return <ChatPanel session={rest[0] ?? "main"} />;
		case "routines":
			return <RoutinesPanel />;
		case "workspace":
			return <WorkspacePanel file={query.get("file")} />;
		case "copilot":
			return <CopilotPanel meetingRef={rest[0]} />;
		default:
			return <p>Unknown agent section.</p>;
	}
}
