/**
 * Calendar sign-in (Google Calendar, Microsoft 365) as the Worker offers it
 * (docs/api.md#calendars): which providers the deployment has a client for, and the start of
 * the authorization-code flow, whose `authorization_url` the page goes to. The provider sends
 * the browser back to `return_to` with `calendar=<id>` or an error marker (calendar-words.ts).
 */
import { MeetbotApiError } from "@meetbot/client";
import { undeclaredCall } from "./api";
import type { CalendarProvider } from "./calendar-words";

/** Where the provider sends the browser back: the Calendars page, a hash route like every page. */
export const SIGN_IN_RETURN_TO = "/#/calendars";

/** The providers this deployment can sign in to; none on a deployment without sign-in (its 404). */
export async function configuredProviders(): Promise<CalendarProvider[]> {
	try {
		const { providers } = await undeclaredCall<{ providers: { id: CalendarProvider; configured: boolean }[] }>(
			"GET",
			"/user/calendars/providers",
		);
		return providers.filter((p) => p.configured && (p.id === "google" || p.id === "microsoft")).map((p) => p.id);
	} catch (err) {
		// An older deployment has no such route; PATCH-only /user/calendars/{id} may answer a GET with 405.
		if (err instanceof MeetbotApiError && (err.status === 404 || err.status === 405)) return [];
		throw err;
	}
}

/** Asks for the provider's consent page and goes there (`go`: the page's navigation, a test's spy). */
export async function startSignIn(
	provider: CalendarProvider,
	go: (url: string) => void = (url) => {
		location.href = url;
	},
): Promise<void> {
	const { authorization_url } = await undeclaredCall<{ authorization_url: string }>(
		"POST",
		`/user/calendars/oauth/${encodeURIComponent(provider)}`,
		{ return_to: SIGN_IN_RETURN_TO },
	);
	// Only a web address is followed: never a script URL, whatever the answer held.
	if (!/^https?:\/\//i.test(authorization_url)) throw new Error("The sign-in answer held no web address to go to");
	go(authorization_url);
}
