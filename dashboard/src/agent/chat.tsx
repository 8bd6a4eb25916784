import type { Schemas } from "@meetbot/client";
import { useEffect, useRef, useState } from "preact/hooks";
import { abortable, api } from "../api";
import { navigate } from "../route";
import { ErrorBanner, errorText, useResource } from "../ui";
import { applyChatFrame, type ChatTurn, startTurn, turnsFromHistory } from "./chat-frames";
import { newNonce, SESSION_NAME, streamTurn } from "./chat-stream";
import { TurnView } from "./turn-view";

function SessionList(props: { current: string; sessions: Schemas["AgentSession"][] | null; error: unknown }) {
	const [name, setName] = useState("");
	const [nameError, setNameError] = useState("");
	const open = (e: Event) => {
		e.preventDefault();
		const session = name.trim();
		if (!SESSION_NAME.test(session)) {
			setNameError("Use 1 to 100 letters, digits and . _ : - only.");
			return;
		}
		setNameError("");
		setName("");
		navigate(`/agent/chat/${encodeURIComponent(session)}`);
	};
	const listed = props.sessions ?? [];
	const showCurrent = !listed.some((s) => s.session === props.current);
	return (
		<nav aria-labelledby="sessions-heading" class="sessions">
			<h2 id="sessions-heading">Sessions</h2>
			<ErrorBanner error={props.error} />
			<ul>
				{showCurrent && (
					<li>
						<a href={`#/agent/chat/${encodeURIComponent(props.current)}`} aria-current="page">
							{props.current} <small>(new)</small>
						</a>
					</li>
				)}
				{listed.map((s) => (
					<li key={s.session}>
						<a href={`#/agent/chat/${encodeURIComponent(s.session)}`} aria-current={s.session === props.current ? "page" : undefined}>
							{s.session}
							<small class="session-title">{s.title}</small>
						</a>
					</li>
				))}
			</ul>
			<form onSubmit={open} noValidate class="new-session">
				<label for="new-session-name">New session name</label>
				<input id="new-session-name" value={name} aria-describedby="new-session-error" onInput={(e) => setName(e.currentTarget.value)} />
				<button class="btn btn-primary" type="submit">
					Open session
				</button>
				<p id="new-session-error" class={nameError ? "error-banner" : "visually-hidden"} role={nameError ? "alert" : undefined}>
					{nameError}
				</p>
			</form>
		</nav>
	);
}

type ModelState = Schemas["AgentHealth"]["capabilities"]["model_inference"]["state"];

/** Says before the first message when a turn could not run, and where to fix it. */
function ModelHint() {
	const [state, setState] = useState<ModelState | null>(null);
	useEffect(() => {
		api.agent
			.health()
			.then((health) => setState(health.capabilities?.model_inference?.state ?? null))
			.catch(() => setState(null));
	}, []);
	if (state !== "not_configured" && state !== "misconfigured") return null;
	return (
		<p class="model-hint">
			{state === "not_configured"
				? "No model is configured for your agent yet."
				: "Your model's base URL is not allowed on this deployment."}{" "}
			<a href="#/settings">Set the model in Settings</a>.
		</p>
	);
}

/** `#/agent/chat/<session>`: one session's turns, a streaming reply, reset. */
export function ChatPanel({ session }: { session: string }) {
	const [turns, setTurns] = useState<ChatTurn[]>([]);
	const sessions = useResource((signal) => abortable(signal).agent.sessions(), "sessions");
	const [historyError, setHistoryError] = useState("");
	const [prompt, setPrompt] = useState("");
	const [running, setRunning] = useState(false);
	const [notice, setNotice] = useState("");
	const abort = useRef<AbortController | null>(null);

	useEffect(() => {
		setTurns([]);
		setHistoryError("");
		setNotice("");
		const controller = new AbortController();
		abortable(controller.signal)
			.agent.history(session)
			.then(({ turns }) => setTurns(turnsFromHistory(turns)))
			.catch((err) => {
				if (!controller.signal.aborted) setHistoryError(errorText(err));
			});
		return () => {
			controller.abort();
			abort.current?.abort();
		};
	}, [session]);

	const send = async (e: Event) => {
		e.preventDefault();
		const text = prompt.trim();
		if (!text || running) return;
		setPrompt("");
		setNotice("");
		setRunning(true);
		const controller = new AbortController();
		abort.current = controller;
		setTurns((list) => [...list, startTurn(text)]);
		// Frames update the newest turn: one turn at a time runs on this page.
		const update = (change: (turn: ChatTurn) => ChatTurn) =>
			setTurns((list) => {
				const last = list.at(-1);
				return last ? [...list.slice(0, -1), change(last)] : list;
			});
		try {
			await streamTurn({
				prompt: text,
				session,
				nonce: newNonce(),
				signal: controller.signal,
				onFrame: (frame) => update((t) => applyChatFrame(t, frame)),
			});
		} catch (err) {
			if (!controller.signal.aborted) update((t) => ({ ...t, state: "failed", detail: errorText(err), complete: true }));
		} finally {
			setRunning(false);
			sessions.reload();
		}
	};

	const reset = async () => {
		try {
			await api.agent.resetChat({ session });
			setTurns([]);
			setNotice(`Session ${session} was reset.`);
			sessions.reload();
		} catch (err) {
			setNotice(errorText(err));
		}
	};

	const onKeyDown = (e: KeyboardEvent) => {
		if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void send(e);
	};

	return (
		<div class="chat-layout">
			<SessionList current={session} sessions={sessions.data?.sessions ?? null} error={sessions.error} />
			<section aria-labelledby="chat-heading" class="chat">
				<div class="settings-row">
					<h2 id="chat-heading">Chat: {session}</h2>
					<button class="btn" type="button" onClick={() => void reset()} disabled={running}>
						Reset session
					</button>
				</div>
				<p role="status" class="notice">
					{running ? "The agent is replying…" : notice}
				</p>
				{historyError && (
					<p role="alert" class="error-banner">
						{historyError}
					</p>
				)}
				<ModelHint />
				<ol class="turns" aria-label="Messages" aria-busy={running}>
					{turns.map((turn, i) => (
						<TurnView key={i} turn={turn} />
					))}
				</ol>
				{turns.length === 0 && !historyError && <p>No messages in this session yet.</p>}
				<form onSubmit={send} class="composer" noValidate>
					<label for="chat-prompt">Message</label>
					<textarea
						id="chat-prompt"
						rows={3}
						value={prompt}
						maxLength={32000}
						aria-describedby="chat-prompt-hint"
						onInput={(e) => setPrompt(e.currentTarget.value)}
						onKeyDown={onKeyDown}
					/>
					<small id="chat-prompt-hint">Ctrl+Enter sends.</small>
					<button class="btn btn-primary" type="submit" disabled={running || prompt.trim() === ""}>
						Send
					</button>
				</form>
			</section>
		</div>
	);
}
