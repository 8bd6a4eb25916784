import { MeetbotApiError } from "@meetbot/client";
import { refusalText } from "../api";

/** The sentence to show for a failure: the API's `detail` for a refusal, else the message. */
export function errorText(error: unknown): string {
	if (error instanceof MeetbotApiError) return refusalText(error);
	if (error instanceof Error) return error.message;
	return String(error);
}

/**
 * An error as a `role="alert"` banner, so screen readers announce it when it appears.
 * Renders nothing for a null error. The text is the API's `detail`, rendered as text.
 */
export function ErrorBanner(props: { error: unknown; label?: string }) {
	if (props.error === null || props.error === undefined) return null;
	return (
		<p class="error-banner" role="alert">
			{props.label ? <strong>{props.label}: </strong> : null}
			{errorText(props.error)}
		</p>
	);
}

/** A short confirmation (e.g. "Chat message sent") in a polite live region. */
export function Notice(props: { text: string | null }) {
	return (
		<p class="notice" role="status">
			{props.text ?? ""}
		</p>
	);
}
