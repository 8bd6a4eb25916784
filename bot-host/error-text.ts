import { redactUrlSecrets } from "../src/url-secrets.ts";

/**
 * An error's message, or the thrown value in words: how the bot host logs and reports a failure.
 * Some libraries reject with an event rather than an Error (a WebSocket's ErrorEvent, as puppeteer
 * does when it cannot reach a browser's DevTools socket): its message, or its error's, is the text.
 * A credential in a URL it quotes (`?api_key=`, `?token=`) is redacted (src/url-secrets.ts).
 */
export function errorText(err: unknown): string {
	return redactUrlSecrets(rawErrorText(err));
}

function rawErrorText(err: unknown): string {
	if (err instanceof Error) return err.message;
	if (typeof err === "object" && err !== null) {
		const { message, error, type } = err as { message?: unknown; error?: unknown; type?: unknown };
		if (typeof message === "string" && message) return message;
		if (error instanceof Error) return error.message;
		if (typeof type === "string") return `${type} event`;
	}
	return String(err);
}
