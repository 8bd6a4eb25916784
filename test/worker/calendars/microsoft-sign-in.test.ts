import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";
import { arrive, consent, newAccount, plans, providerAccount, signIn, slot, startSignIn, syncOf } from "./signed-in";

interface GraphStats {
	refreshes: number;
	unauthorized: number;
	liveRefreshTokens: number;
	exchanges: number;
	subscriptions: {
		id: string;
		notificationUrl: string;
		clientState: string | null;
		expirationDateTime: string;
		validationToken: string;
		deleted: boolean;
		resource: string;
		changeType: string;
	}[];
	deltaRequests: { url: string; prefer: string }[];
}

/** A Graph event resource (times in UTC, as asked with Prefer outlook.timezone). */
function graphEvent(subject: string, hours: number, fields: Record<string, unknown> = {}) {
	const { start, end } = slot(hours);
	const local = (iso: string) => iso.replace(/\.\d{3}Z$/, ".0000000");
	return {
		subject,
		start: { dateTime: local(start), timeZone: "UTC" },
		end: { dateTime: local(end), timeZone: "UTC" },
		isAllDay: false,
		isCancelled: false,
		isOrganizer: false,
		organizer: { emailAddress: { name: "Someone", address: "someone@example.com" } },
		attendees: [],
		location: { displayName: "" },
		body: { contentType: "html", content: "<html><body></body></html>" },
		...fields,
	};
}

const teams = (n: string) => `https://teams.microsoft.com/l/meetup-join/19%3ameeting_${n}%40thread.v2/0?context=%7b%22Tid%22%3a%22t%22%7d`;

describe("Microsoft 365 sign-in", () => {
	it("signs in with PKCE, plans Teams joinUrl and Zoom-in-body events, and keeps each rotated refresh token", async () => {
		const { headers } = await userWithKey("bot");
		const upn = newAccount();
		const graph = providerAccount("microsoft", upn);
		await graph.control("token-lifetime?seconds=30");
		const meetingNumber = `${Date.now()}`;
		await graph.putEvent(
			"AAMk-teams",
			graphEvent("Teams sync", 2, {
				isOnlineMeeting: true,
				onlineMeetingProvider: "teamsForBusiness",
				onlineMeeting: { joinUrl: teams(meetingNumber) },
				isOrganizer: true,
			}),
		);
		await graph.putEvent(
			"AAMk-zoom",
			graphEvent("Zoom in body", 3, {
				body: {
					contentType: "html",
					content: '<p>Join: <a href="https://zoom.us/j/98765432109?pwd=xyz">https://zoom.us/j/98765432109?pwd=xyz</a></p>',
				},
			}),
		);
		await graph.putEvent("AAMk-none", graphEvent("No link", 4));

		const started = await startSignIn(headers, "microsoft", { return_to: "/#/calendars" });
		const authorization = new URL(started.authorization_url);
		expect(authorization.pathname).toBe("/common/oauth2/v2.0/authorize");
		expect(authorization.searchParams.get("scope")?.split(" ")).toEqual(expect.arrayContaining(["offline_access", "Calendars.Read"]));
		expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
		const res = await arrive(await consent(started.authorization_url, upn), started.cookie);
		const id = res.headers.get("location")?.match(/calendar=(cal_[0-9a-f]{32})/)?.[1];
		const listed = await json<{ calendars: Record<string, unknown>[] }>(await call("GET", "/user/calendars", { headers }));
		expect(listed.calendars.find((c) => c.id === id)).toMatchObject({
			kind: "microsoft",
			account: upn,
			name: `Microsoft 365 (${upn})`,
			ics_url_set: false,
		});

		const made = await plans(headers);
		expect(made.map((m) => [m.platform, m.data.title]).sort()).toEqual([
			["teams", "Teams sync"],
			["zoom", "Zoom in body"],
		]);
		expect(made.find((m) => m.platform === "zoom")?.native_meeting_id).toBe("98765432109");
		let stats = await graph.stats<GraphStats>();
		expect(stats.exchanges).toBe(1);
		expect(stats.deltaRequests[0]?.url).toMatch(/calendarView\/delta\?startDateTime=.+&endDateTime=/);
		expect(stats.deltaRequests[0]?.prefer).toContain("odata.maxpagesize=");
		const refreshesAfterSignIn = stats.refreshes;
		expect(refreshesAfterSignIn).toBeGreaterThanOrEqual(1);

		// Each sync refreshes (30 s tokens) and the server retires every refresh token used: a gateway that kept an old one fails here.
		for (let i = 0; i < 3; i++) expect((await syncOf(headers, id ?? "")).last_error).toBeNull();
		stats = await graph.stats<GraphStats>();
		expect(stats.refreshes).toBeGreaterThanOrEqual(refreshesAfterSignIn + 3);
		expect(stats.liveRefreshTokens).toBe(1);
		expect(stats.unauthorized).toBe(0);

		const denied = await startSignIn(headers, "microsoft", { return_to: "/#/calendars?tab=1" });
		const back = await arrive(await consent(denied.authorization_url, upn, "deny"), denied.cookie);
		expect(back.headers.get("location")).toBe("/#/calendars?tab=1&calendar_error=access_denied");
	});

	it("follows @odata.nextLink pages, then the delta link's changes (removed events), and a full round again after 410", async () => {
		const { headers } = await userWithKey("bot");
		const upn = newAccount();
		const graph = providerAccount("microsoft", upn);
		for (let i = 0; i < 105; i++) await graph.putEvent(`AAMk-${i}`, graphEvent(`Plain ${i}`, 6));
		const [a, b] = [`${Date.now()}1`, `${Date.now()}2`];
		await graph.putEvent("AAMk-a", graphEvent("A", 2, { onlineMeeting: { joinUrl: teams(a) } }));
		await graph.putEvent("AAMk-b", graphEvent("B", 3, { onlineMeeting: { joinUrl: teams(b) } }));
		const connection = await signIn(headers, "microsoft", upn);
		expect((await plans(headers)).map((m) => m.data.title).sort()).toEqual(["A", "B"]);
		let stats = await graph.stats<GraphStats>();
		expect(stats.deltaRequests.map((r) => new URL(r.url).searchParams.has("$skiptoken"))).toEqual([false, true]);

		await graph.deleteEvent("AAMk-a");
		await graph.putEvent("AAMk-b", graphEvent("B moved", 5, { onlineMeeting: { joinUrl: teams(b) } }));
		expect((await syncOf(headers, connection.id)).counts).toEqual({ created: 0, updated: 1, cancelled: 1 });
		stats = await graph.stats<GraphStats>();
		expect(new URL(stats.deltaRequests.at(-1)?.url ?? "").searchParams.has("$deltatoken")).toBe(true);
		expect((await plans(headers)).map((m) => m.data.title)).toEqual(["B moved"]);

		await graph.control("forget-delta-tokens");
		expect((await syncOf(headers, connection.id)).last_error).toBeNull();
		expect((await plans(headers)).map((m) => m.data.title)).toEqual(["B moved"]);
	});

	it("subscribes with a clientState, answers the validation handshake, syncs on a notification, renews, and deletes it on disconnect", async () => {
		const { headers } = await userWithKey("bot");
		const upn = newAccount();
		const graph = providerAccount("microsoft", upn);
		await graph.putEvent("AAMk-1", graphEvent("First", 2, { onlineMeeting: { joinUrl: teams(`${Date.now()}3`) } }));
		const connection = await signIn(headers, "microsoft", upn);
		const [subscription] = (await graph.stats<GraphStats>()).subscriptions;
		expect(subscription).toMatchObject({
			notificationUrl: "https://gateway.test/calendars/push/microsoft",
			resource: "me/events",
			changeType: "created,updated,deleted",
			deleted: false,
		});
		expect(subscription?.clientState).toMatch(/^[A-Za-z0-9_-]{32}$/);

		// Graph's handshake, as its server would make it: the token comes back as text/plain.
		const handshake = await SELF.fetch(
			`https://gateway.test/calendars/push/microsoft?validationToken=${encodeURIComponent(subscription?.validationToken ?? "")}`,
			{ method: "POST" },
		);
		expect(handshake.status).toBe(200);
		expect(handshake.headers.get("content-type")).toMatch(/^text\/plain/);
		expect(await handshake.text()).toBe(subscription?.validationToken);

		const notify = (clientState: string) =>
			SELF.fetch("https://gateway.test/calendars/push/microsoft", {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({
					value: [
						{
							subscriptionId: subscription?.id,
							subscriptionExpirationDateTime: subscription?.expirationDateTime,
							changeType: "created",
							resource: "Users/x/Events/AAMk-2",
							resourceData: { "@odata.type": "#Microsoft.Graph.Event", id: "AAMk-2" },
							clientState,
							tenantId: "t",
						},
					],
				}),
			});
		await graph.putEvent("AAMk-2", graphEvent("Second", 3, { onlineMeeting: { joinUrl: teams(`${Date.now()}4`) } }));
		expect((await notify("forged-client-state")).status).toBe(202);
		expect((await plans(headers)).map((m) => m.data.title)).toEqual(["First"]);
		expect((await notify(subscription?.clientState ?? "")).status).toBe(202);
		let titles: unknown[] = [];
		for (let i = 0; i < 100 && titles.length < 2; i++) {
			await new Promise((r) => setTimeout(r, 50));
			titles = (await plans(headers)).map((m) => m.data.title);
		}
		expect(titles.sort()).toEqual(["First", "Second"]);
		expect((await call("POST", "/calendars/push/microsoft", { json: { not: "a notification" } })).status).toBe(400);

		// Within a day of its end: the next sync renews the same subscription (PATCH), keeping its clientState.
		await env.DB.prepare("UPDATE calendar_connections SET push_expires_at = ? WHERE id = ?")
			.bind(new Date(Date.now() + 3600_000).toISOString(), connection.id)
			.run();
		await syncOf(headers, connection.id);
		const [renewed] = (await graph.stats<GraphStats>()).subscriptions;
		expect(renewed?.id).toBe(subscription?.id);
		expect(Date.parse(renewed?.expirationDateTime ?? "")).toBeGreaterThan(Date.now() + 2 * 24 * 3600_000);
		expect((await notify(subscription?.clientState ?? "")).status).toBe(202);

		expect((await call("DELETE", `/user/calendars/${connection.id}`, { headers })).status).toBe(204);
		expect((await graph.stats<GraphStats>()).subscriptions[0]?.deleted).toBe(true);
		expect(await plans(headers)).toEqual([]);
	});
});
