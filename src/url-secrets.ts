/**
 * Credentials that travel in a URL's query: `/ws?api_key=` (reference clients connect that way),
 * `/ws?ticket=`, and any `token` (a provider's or a feed's). A URL may be logged, traced or put
 * into an error; these keep the value out of every such text (docs/live-feed.md#connecting).
 * Plain TypeScript with no imports: the Worker, the bot host and the local stack's scripts
 * share it.
 */

/** The query parameters whose value is a credential. */
export const SECRET_QUERY_PARAMS = ["api_key", "token", "ticket", "access_token"] as const;

/** What a redacted value reads as. */
export const REDACTED = "[redacted]";

// `?`, `&` or `;` (also percent-encoded, in a URL inside another), the name, `=` (or `%3D`), then
// the value up to the next separator or the end of the URL as text shows it.
const SECRET_PARAM = new RegExp(`((?:[?&;]|%3F|%26)(?:${SECRET_QUERY_PARAMS.join("|")})(?:=|%3D))[^&#;\\s"'<>\`]*`, "gi");

/** `text` (a log line, an error message, a URL) with every credential query value replaced. */
export function redactUrlSecrets(text: string): string {
	return text.replace(SECRET_PARAM, `$1${REDACTED}`);
}

/** A copy of `url` without its credential query parameters, for passing a request on. */
export function withoutUrlSecrets(url: string | URL): URL {
	const copy = new URL(url);
	for (const name of [...copy.searchParams.keys()]) {
		if ((SECRET_QUERY_PARAMS as readonly string[]).includes(name.toLowerCase())) copy.searchParams.delete(name);
	}
	return copy;
}
