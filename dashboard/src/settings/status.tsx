import { useState } from "preact/hooks";
import { ApiError } from "../api";

/** What a form's last action came to: shown under the form, announced to screen readers. */
export type ActionState = { kind: "idle" } | { kind: "busy" } | { kind: "done"; message: string } | { kind: "failed"; detail: string };

export function errorText(err: unknown): string {
	if (err instanceof ApiError) return err.detail;
	return err instanceof Error ? err.message : String(err);
}

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

export function ActionStatus({ state }: { state: ActionState }) {
	if (state.kind === "failed")
		return (
			<p class="form-error" role="alert">
				{state.detail}
			</p>
		);
	return (
		<p class="form-status" role="status">
			{state.kind === "done" ? state.message : state.kind === "busy" ? "Saving…" : ""}
		</p>
	);
}
