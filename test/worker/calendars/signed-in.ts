/**
 * Signing a test user into the local Google Calendar or Graph (test/receiver/*-calendar-server.ts)
 * the way the dashboard and a browser do: POST /user/calendars/oauth/{provider}, open the
 * authorization URL as the signed-in user (the provider's consent page answers a redirect to the
 * gateway's callback), then follow that redirect into the Worker.
 */
import { SELF } from "cloudflare:test";
import { expect, inject } from "vitest";
import type { Meeting } from "../../shared/meetings";
import { call, json } from "../support";
import type { Connection } from "./feeds";

export type Provider = "google" | "microsoft";
export const providerUrl = (provider: Provider) => inject(provider === "google" ? "googleCalendarUrl" : "graphCalendarUrl");

export interface SignedInConnection extends Connection {
	kind: "ics" | "google" | "microsoft";
	account: string | null;
	auto_join_rules: { organizer_only: boolean; min_attendees: number | null };
}

/** The provider's side, as the tests drive it: events, token tricks, and what it recorded. */
export function providerAccount(provider: Provider, account: string) {
	const base = `${providerUrl(provider)}/__accounts/${encodeURIComponent(account)}`;
	return {
		async putEvent(id: string, event: Record<string, unknown>) {
			expect((await fetch(`${base}/events/${encodeURIComponent(id)}`, { method: "PUT", body: JSON.stringify(event) })).status).toBe(200);
		},
		async deleteEvent(id: string) {
			expect((await fetch(`${base}/events/${encodeURIComponent(id)}`, { method: "DELETE" })).status).toBe(200);
		},
		async control(what: string) {
			return (await fetch(`${base}/${what}`, { method: "POST" })).json() as Promise<Record<string, unknown>>;
		},
		async stats<T = Record<string, unknown>>(): Promise<T> {
			return (await fetch(base)).json() as Promise<T>;
		},
	};
}

/** Starts a sign-in; the body as POST /user/calendars/oauth/{provider} takes it. */
export async function startSignIn(headers: Record<string, string>, provider: Provider, body: Record<string, unknown> = {}) {
	const res = await call("POST", `/user/calendars/oauth/${provider}`, { headers, json: body });
	expect(res.status, await res.clone().text()).toBe(200);
	// The cookie that binds the sign-in to this browser, as the browser would send it back.
	const cookie = res.headers.get("set-cookie")?.split(";")[0] ?? "";
	return { ...(await json<{ authorization_url: string; state: string }>(res)), cookie };
}

/** Opens the authorization URL as `account` (or declining) and returns the provider's redirect to the callback. */
export async function consent(authorizationUrl: string, account: string, decision: "allow" | "deny" = "allow"): Promise<URL> {
	const res = await fetch(authorizationUrl, { redirect: "manual", headers: { "x-test-user": account, "x-test-consent": decision } });
	expect(res.status).toBe(302);
	return new URL(res.headers.get("location") ?? "");
}

/** The browser arriving at the gateway's callback (with the start's cookie, when it is the same browser); not followed. */
export function arrive(callback: URL, cookie?: string): Promise<Response> {
	return SELF.fetch(`https://gateway.test${callback.pathname}${callback.search}`, {
		redirect: "manual",
		headers: cookie ? { cookie } : {},
	});
}

/** The whole sign-in; the new connection as GET /user/calendars lists it. */
export async function signIn(headers: Record<string, string>, provider: Provider, account: string, body: Record<string, unknown> = {}) {
	const start = await startSignIn(headers, provider, { return_to: "/#/calendars", ...body });
	const res = await arrive(await consent(start.authorization_url, account), start.cookie);
	expect(res.status, await res.clone().text()).toBe(302);
	const location = res.headers.get("location") ?? "";
	const id = location.match(/[?&]calendar=([^&]+)/)?.[1];
	expect(location, location).toMatch(/^\/#\/calendars\?calendar=cal_/);
	const listed = await json<{ calendars: SignedInConnection[] }>(await call("GET", "/user/calendars", { headers }));
	const connection = listed.calendars.find((c) => c.id === id);
	expect(connection).toBeDefined();
	return connection as SignedInConnection;
}

export async function plans(headers: Record<string, string>): Promise<Meeting[]> {
	return (await json<{ meetings: Meeting[] }>(await call("GET", "/meetings?limit=500", { headers }))).meetings;
}

export async function syncOf(headers: Record<string, string>, id: string) {
	const res = await call("POST", `/user/calendars/${id}/sync`, { headers });
	expect(res.status).toBe(200);
	return json<{ last_error: string | null; counts: { created: number; updated: number; cancelled: number } }>(res);
}

/** An hour-long meeting starting `hours` from now, as ISO times. */
export function slot(hours: number) {
	const start = new Date(Date.now() + hours * 3600_000);
	start.setUTCSeconds(0, 0);
	return { start: start.toISOString(), end: new Date(start.getTime() + 3600_000).toISOString() };
}

/** A Google event resource with a Meet link, as events.list gives it (hangoutLink, conferenceData). */
export function meetEvent(code: string, hours: number, fields: Record<string, unknown> = {}) {
	const { start, end } = slot(hours);
	return {
		status: "confirmed",
		summary: `Review ${code}`,
		start: { dateTime: start, timeZone: "UTC" },
		end: { dateTime: end, timeZone: "UTC" },
		hangoutLink: `https://meet.google.com/${code}`,
		conferenceData: {
			entryPoints: [{ entryPointType: "video", uri: `https://meet.google.com/${code}`, label: `meet.google.com/${code}` }],
			conferenceSolution: { key: { type: "hangoutsMeet" }, name: "Google Meet" },
		},
		...fields,
	};
}

export const newAccount = () => `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
