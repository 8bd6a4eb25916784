/**
 * The dashboard's only way to the API (same origin): one typed client (`createClient` of
 * @meetbot/client), so every call names its route and body as the OpenAPI document declares
 * them. The key lives in this tab's sessionStorage and travels only in the `X-API-Key` header:
 * never in a URL (so never in a log line) and never in localStorage. `/ws` takes a short-lived
 * ticket instead (POST /auth/ticket).
 */
import {
	createClient,
	createOperatorClient,
	errorFromResponse,
	type FetchLike,
	MeetbotApiError,
	type MeetbotClient,
	type MeetbotOperatorClient,
} from "@meetbot/client";
import { detailWords, fieldWords } from "./words/fields";

const KEY_SLOT = "meetbot.key";
const METRICS_TOKEN_SLOT = "meetbot.metrics-token";

export const session = {
	key: (): string | null => sessionStorage.getItem(KEY_SLOT),
	signIn: (key: string) => sessionStorage.setItem(KEY_SLOT, key),
	// The operator's metrics token (below) leaves with the key.
	signOut: () => {
		sessionStorage.removeItem(KEY_SLOT);
		sessionStorage.removeItem(METRICS_TOKEN_SLOT);
	},
};

/**
 * The operator's FLEET_METRICS_TOKEN, for the Join health page (docs/dashboard.md#join-health):
 * kept apart from the key in this tab's sessionStorage, and sent only as the Bearer of the
 * operator's routes, never in a URL and never to a user's route.
 */
export const metricsToken = {
	get: (): string | null => sessionStorage.getItem(METRICS_TOKEN_SLOT),
	set: (token: string) => sessionStorage.setItem(METRICS_TOKEN_SLOT, token),
	forget: () => sessionStorage.removeItem(METRICS_TOKEN_SLOT),
};

/** A refusal as a line of text: the API's sentence, or the first field error of a 422. */
export function refusalText(error: MeetbotApiError): string {
	const { detail, status } = error;
	if (typeof detail === "string") return detailWords(detail);
	const first = detail[0];
	if (!first) return `HTTP ${status}`;
	// The field as the form names it ("Meeting link"), not its path (`body.meeting_url`).
	const field = fieldWords(first.loc);
	return `${field ? `${field}: ` : ""}${first.msg || "invalid"}`;
}

let unauthorized: (detail: string) => void = () => undefined;

/**
 * Registers what happens when the API refuses the key (401: revoked or expired) on any call,
 * so the shell can sign out instead of every page showing the error.
 */
export function onUnauthorized(handler: (detail: string) => void) {
	unauthorized = handler;
}

/** The page's fetch, its calls ended by `signal` when one is given. */
const pageFetch =
	(signal?: AbortSignal): FetchLike =>
	(input, init) =>
		fetch(input, signal ? { ...init, signal } : init);

/** A call with the key: a 401 (a revoked or expired key) signs the tab out, before the caller sees the refusal. */
const keyFetch =
	(signal?: AbortSignal): FetchLike =>
	async (input, init) => {
		const response = await pageFetch(signal)(input, init);
		if (response.status === 401) unauthorized(refusalText(await errorFromResponse(response.clone(), "")));
		return response;
	};

const clientFor = (signal?: AbortSignal): MeetbotClient =>
	createClient({ baseUrl: location.origin, apiKey: session.key, fetch: keyFetch(signal) });

/** The API with this tab's key, read as each call is sent (none while signed out). */
export const api = clientFor();

/** The same API, its calls ended when `signal` aborts: a page's load that a newer one overtook. */
export const abortable = (signal: AbortSignal): MeetbotClient => clientFor(signal);

/**
 * The operator's routes with the metrics token as their only credential: the key is not sent,
 * and a refusal is the token's, so it never signs the tab out.
 */
export function operatorApi(signal?: AbortSignal): MeetbotOperatorClient {
	const token = metricsToken.get();
	if (!token) throw new MeetbotApiError(401, "Enter the metrics token", "GET /internal/fleet/join-health");
	return createOperatorClient({ baseUrl: location.origin, metricsToken: token, fetch: pageFetch(signal) });
}
