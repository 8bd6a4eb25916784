import type { ChatTurn, TurnPart } from "./chat-frames";

/** One part of an agent reply. Every string here came from the model or a tool: text nodes only. */
function Part({ part }: { part: TurnPart }) {
	switch (part.kind) {
		case "text":
			return <p class="reply-text">{part.text}</p>;
		case "tool":
			return (
				<div class="tool-item">
					<span class="tool-label">Tool</span> <code>{part.tool}</code> <span class="tool-args">{part.args}</span>
					{part.result ? (
						<span class={part.result.ok ? "tool-ok" : "tool-failed"}>
							{part.result.ok ? " ✓ " : " ✗ "}
							{part.result.summary}
						</span>
					) : (
						<span class="tool-pending"> running…</span>
					)}
				</div>
			);
		case "commit":
			return (
				<div class="tool-item">
					<span class="tool-label">Commit</span> <code>{part.sha.slice(0, 12)}</code>
					{part.findings.length > 0 && (
						<ul class="findings">
							{part.findings.map((f) => (
								<li key={f.path + f.problem}>
									<code>{f.path}</code>: {f.problem}
								</li>
							))}
						</ul>
					)}
				</div>
			);
		case "rejected":
			return (
				<div class="tool-item tool-failed">
					<span class="tool-label">Refused write</span> {part.violations.join("; ")}
				</div>
			);
		case "held":
			return (
				<div class="tool-item tool-held">
					<span class="tool-label">Waits for you</span> {part.summary} ({part.reason}). Confirm or refuse it:{" "}
					<code>PATCH /agent/actions/{part.actionId}/confirmed</code>
				</div>
			);
	}
}

export function TurnView({ turn }: { turn: ChatTurn }) {
	return (
		<li class="turn">
			{turn.prompt !== "" && (
				<div class="msg msg-user">
					<span class="who">You</span>
					<p class="reply-text">{turn.prompt}</p>
				</div>
			)}
			<div class="msg msg-agent">
				<span class="who">Agent</span>
				{turn.parts.map((part, i) => (
					<Part key={i} part={part} />
				))}
				{turn.state === "running" && <p class="typing">Thinking…</p>}
				{turn.state === "failed" && (
					<p class="error-banner" role="alert">
						{turn.detail}
					</p>
				)}
			</div>
		</li>
	);
}
