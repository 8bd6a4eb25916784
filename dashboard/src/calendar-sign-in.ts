/**
 * Calendar sign-in (Google Calendar, Microsoft 365) as the Worker offers it
 * (docs/api.md#calendars-you-sign-into): which providers the deployment has a client for, and the
 * start of the authorization-code flow, whose `authorization_url` the page goes to. The start is a
 * same-origin fetch (the client leaves `credentials` at its default), so the sign-in cookie it sets
 * comes back with this browser to the callback. The provider sends the browser back to
 * `return_to` with `calendar=<id>` or an error marker (calendar-words.ts).
 */
import { MeetbotApiError } from "@meetbot/client";
import { api } from "./api";
import type { CalendarProvider } from "./calendar-words";

/** Where the provider sends the browser back: the Calendars page, a hash route like every page. */
export const SIGN_IN_RETURN_TO = "/#/calendars";

/** The providers this deployment can sign in to; none on a deployment without sign-in (its 404). */
export async function configuredProviders(): Promise<CalendarProvider[]> {
	try {
		const { providers } = await api.calendars.providers();
		return providers.filter((p) => p.configured).map((p) => p.id);
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
	const { authorization_url } = await api.calendars.signIn(provider, { return_to: SIGN_IN_RETURN_TO });
	// Only a web address is followed: never a script URL, whatever the answer held.
	if (!/^https?:\/\//i.test(authorization_url)) throw new Error("The sign-in answer held no web address to go to");
	go(authorization_url);
}
