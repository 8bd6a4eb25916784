import { useState } from "preact/hooks";
import { ErrorBanner, errorText, Notice } from "../ui";

/** What a form's last action came to: shown under the form, announced to screen readers. */
export type ActionState = { kind: "idle" } | { kind: "busy" } | { kind: "done"; message: string } | { kind: "failed"; detail: string };

/** Runs one action at a time and keeps its outcome: the API's `detail` on failure. */
export function useAction(): [ActionState, (run: () => Promise<string>) => Promise<void>] {
	const [state, setState] = useState<ActionState>({ kind: "idle" });
	const start = async (run: () => Promise<string>) => {
		setState({ kind: "busy" });
		try {
			setState({ kind: "done", message: await run() });
		} catch (err) {
			setState({ kind: "failed", detail: errorText(err) });
		}
	};
	return [state, start];
}

export function ActionStatus({ state, busy = "Saving…" }: { state: ActionState; busy?: string }) {
	if (state.kind === "failed") return <ErrorBanner error={state.detail} />;
	return <Notice text={state.kind === "done" ? state.message : state.kind === "busy" ? busy : null} />;
}
