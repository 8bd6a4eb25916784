import type { ComponentChildren } from "preact";

/**
 * A button; `busy` disables it and says so (aria-busy) while its request runs, so a double
 * click cannot send twice. `danger` for destructive actions (stop, delete).
 */
export function Button(props: {
	children: ComponentChildren;
	onClick?: () => void;
	type?: "button" | "submit";
	busy?: boolean;
	disabled?: boolean;
	variant?: "primary" | "danger" | "plain";
	/** An accessible name when the visible text is not enough ("Stop the bot in Weekly sync"). */
	label?: string;
}) {
	return (
		<button
			type={props.type ?? "button"}
			class={`btn btn-${props.variant ?? "plain"}`}
			onClick={props.onClick}
			disabled={props.disabled || props.busy}
			aria-busy={props.busy ? "true" : undefined}
			aria-label={props.label}
		>
			{props.children}
		</button>
	);
}
