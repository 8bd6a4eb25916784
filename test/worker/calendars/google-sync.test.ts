import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { meetCode } from "../../shared/meetings";
import { call, json, userWithKey } from "../support";
import { tick } from "./feeds";
import { consent, meetEvent, newAccount, plans, providerAccount, signIn, slot, syncOf } from "./signed-in";

interface GoogleStats {
	refreshes: number;
	revocations: number;
	unauthorized: number;
	liveRefreshTokens: number;
	channels: { id: string; resourceId: string; token: string | null; address: string; stopped: boolean }[];
	listRequests: Record<string, string>[];
}

const people = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `p${i}@example.com`, displayName: `Person ${i}` }));

/** The sign-in's start and callback through the Worker with some deployment settings changed. */
async function callLocal(overrides: Partial<Env>, headers: Record<string, string>) {
	const ctx = createExecutionContext();
	const res = await worker.fetch(
		new Request("https://gateway.test/user/calendars/oauth/google", {
			method: "POST",
			headers: { ...headers, "content-type": "application/json" },
			body: JSON.stringify({ return_to: "/#/calendars" }),
		}),
		{ ...env, ...overrides } as Env,
		ctx,
	);
	await waitOnExecutionContext(ctx);
	const cookie = res.headers.get("set-cookie")?.split(";")[0] ?? "";
	return { ...((await res.json()) as { authorization_url: string }), cookie };
}

async function arriveLocal(overrides: Partial<Env>, callback: URL, cookie: string) {
	const ctx = createExecutionContext();
	const res = await worker.fetch(
		new Request(`https://gateway.test${callback.pathname}${callback.search}`, { redirect: "manual", headers: { cookie } }),
		{ ...env, ...overrides } as Env,
		ctx,
	);
	await waitOnExecutionContext(ctx);
	return res;
}

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
	for (let i = 0; i < 100; i++) {
		const value = await read();
		if (done(value)) return value;
		await new Promise((r) => setTimeout(r, 50));
	}
	return read();
}

describe("Google Calendar sync", () => {
	it("applies the auto-join rules: only meetings I organise, at least N invited; patched rules resync every event", async () => {
		const { headers } = await userWithKey("bot");
		const email = newAccount();
		const google = providerAccount("google", email);
		const [mine, theirs, small] = [meetCode(), meetCode(), meetCode()];
		await google.putEvent("mine", meetEvent(mine, 2, { organizer: { email }, attendees: [{ email }, ...people(3)] }));
		await google.putEvent(
			"theirs",
			meetEvent(theirs, 3, { organizer: { email: "boss@example.com" }, attendees: [{ email }, ...people(4)] }),
		);
		await google.putEvent("small", meetEvent(small, 4, { organizer: { email }, attendees: [{ email }, ...people(1)] }));
		const connection = await signIn(headers, "google", email);
		expect((await plans(headers)).map((m) => m.native_meeting_id).sort()).toEqual([mine, theirs, small].sort());

		const patched = await call("PATCH", `/user/calendars/${connection.id}`, {
			headers,
			json: { auto_join_rules: { organizer_only: true } },
		});
		expect((await json<{ auto_join_rules: unknown }>(patched)).auto_join_rules).toEqual({ organizer_only: true, min_attendees: null });
		expect((await syncOf(headers, connection.id)).counts.cancelled).toBe(1);
		expect((await plans(headers)).map((m) => m.native_meeting_id).sort()).toEqual([mine, small].sort());

		await call("PATCH", `/user/calendars/${connection.id}`, { headers, json: { auto_join_rules: { min_attendees: 3 } } });
		await syncOf(headers, connection.id);
		expect((await plans(headers)).map((m) => m.native_meeting_id)).toEqual([mine]);

		await call("PATCH", `/user/calendars/${connection.id}`, {
			headers,
			json: { auto_join_rules: { organizer_only: false, min_attendees: null } },
		});
		expect((await syncOf(headers, connection.id)).counts.created).toBe(2);
		for (const bad of [{ min_attendees: 0 }, { min_attendees: 1.5 }, { organizer_only: "yes" }, { other: true }]) {
			expect((await call("PATCH", `/user/calendars/${connection.id}`, { headers, json: { auto_join_rules: bad } })).status).toBe(422);
		}
		const icsOnly = await call("PATCH", `/user/calendars/${connection.id}`, { headers, json: { ics_url: "https://example.com/a.ics" } });
		expect(icsOnly.status).toBe(422);
		expect((await json<{ detail: string }>(icsOnly)).detail).toContain("ICS");
	});

	it("refreshes a token about to expire before using it, and once more after a 401; a revoked grant asks to sign in again", async () => {
		const { headers } = await userWithKey("bot");
		const email = newAccount();
		const google = providerAccount("google", email);
		// Tokens of 30 s: within the gateway's one-minute margin, so each is refreshed before use.
		await google.control("token-lifetime?seconds=30");
		await google.putEvent("one", meetEvent(meetCode(), 2));
		const connection = await signIn(headers, "google", email);
		let stats = await google.stats<GoogleStats>();
		expect(stats.refreshes).toBeGreaterThanOrEqual(1);
		expect(stats.unauthorized).toBe(0);

		await google.control("token-lifetime?seconds=3600");
		await syncOf(headers, connection.id);
		await google.control("expire-access");
		const before = (await google.stats<GoogleStats>()).refreshes;
		const stamp = await syncOf(headers, connection.id);
		expect(stamp.last_error).toBeNull();
		stats = await google.stats<GoogleStats>();
		expect(stats.unauthorized).toBe(1);
		expect(stats.refreshes).toBe(before + 1);

		await google.control("revoke-grant");
		await google.control("expire-access");
		const revoked = await call("POST", `/user/calendars/${connection.id}/sync`, { headers });
		expect(revoked.status).toBe(200);
		const text = await revoked.text();
		expect(JSON.parse(text).last_error).toContain("sign in again");
		expect(text).not.toMatch(/\b(at|rt)-[A-Za-z0-9_-]{20,}/);
	});

	it("reads every page of a full listing, then only changes from the sync token, and lists in full again after a 410", async () => {
		const { headers } = await userWithKey("bot");
		const email = newAccount();
		const google = providerAccount("google", email);
		const { start, end } = slot(6);
		for (let i = 0; i < 255; i++) {
			await google.putEvent(`a-${String(i).padStart(3, "0")}`, {
				summary: `No link ${i}`,
				start: { dateTime: start },
				end: { dateTime: end },
			});
		}
		const [first, last] = [meetCode(), meetCode()];
		await google.putEvent("a-000-meet", meetEvent(first, 2));
		// Sorted last: on the second page of 250.
		await google.putEvent("z-meet", meetEvent(last, 3));
		const connection = await signIn(headers, "google", email);
		expect((await plans(headers)).map((m) => m.native_meeting_id).sort()).toEqual([first, last].sort());
		let requests = (await google.stats<GoogleStats>()).listRequests;
		expect(requests.map((r) => Boolean(r.pageToken))).toEqual([false, true]);
		expect(requests[0]).toMatchObject({ singleEvents: "true", maxResults: "250" });
		expect(requests[0]?.timeMin).toBeDefined();

		const moved = slot(8);
		await google.putEvent("z-meet", meetEvent(last, 8, { start: { dateTime: moved.start }, end: { dateTime: moved.end } }));
		await google.deleteEvent("a-000-meet");
		const stamp = await syncOf(headers, connection.id);
		expect(stamp.counts).toEqual({ created: 0, updated: 1, cancelled: 1 });
		requests = (await google.stats<GoogleStats>()).listRequests;
		expect(requests.at(-1)?.syncToken).toBeDefined();
		expect(requests.at(-1)?.timeMin).toBeUndefined();
		const [kept] = await plans(headers);
		expect([kept?.native_meeting_id, kept?.data.scheduled_at]).toEqual([last, moved.start]);

		await google.control("forget-sync-tokens");
		const again = await syncOf(headers, connection.id);
		expect(again.last_error).toBeNull();
		requests = (await google.stats<GoogleStats>()).listRequests;
		expect(requests.slice(-3).map((r) => [Boolean(r.syncToken), Boolean(r.timeMin)])).toEqual([
			[true, false],
			[false, true],
			[false, true],
		]);
		expect((await plans(headers)).map((m) => m.native_meeting_id)).toEqual([last]);
	});

	it("opens a push channel; a notification with the channel's token syncs, any other is refused; disconnect stops it and revokes", async () => {
		const { headers } = await userWithKey("bot");
		const email = newAccount();
		const google = providerAccount("google", email);
		await google.putEvent("first", meetEvent(meetCode(), 2));
		const connection = await signIn(headers, "google", email);
		const [channel] = (await google.stats<GoogleStats>()).channels;
		expect(channel).toMatchObject({ address: "https://gateway.test/calendars/push/google", stopped: false });
		expect(channel?.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
		const stored = await env.DB.prepare("SELECT * FROM calendar_connections WHERE id = ?")
			.bind(connection.id)
			.first<Record<string, unknown>>();
		expect(JSON.stringify(stored)).not.toContain(channel?.token);

		const notify = (token: string, state: string) =>
			SELF.fetch("https://gateway.test/calendars/push/google", {
				method: "POST",
				headers: {
					"X-Goog-Channel-ID": channel?.id ?? "",
					"X-Goog-Channel-Token": token,
					"X-Goog-Resource-ID": channel?.resourceId ?? "",
					"X-Goog-Resource-State": state,
					"X-Goog-Message-Number": "1",
				},
			});
		expect((await notify(channel?.token ?? "", "sync")).status).toBe(200);
		const added = meetCode();
		await google.putEvent("second", meetEvent(added, 4));
		expect((await notify("not-the-token", "exists")).status).toBe(404);
		expect((await plans(headers)).map((m) => m.native_meeting_id)).not.toContain(added);
		expect((await notify(channel?.token ?? "", "exists")).status).toBe(200);
		const synced = await waitFor(
			() => plans(headers),
			(list) => list.some((m) => m.native_meeting_id === added),
		);
		expect(synced.map((m) => m.native_meeting_id)).toContain(added);

		expect((await call("DELETE", `/user/calendars/${connection.id}`, { headers })).status).toBe(204);
		const after = await google.stats<GoogleStats>();
		expect(after.channels[0]?.stopped).toBe(true);
		expect(after.revocations).toBe(1);
		expect(after.liveRefreshTokens).toBe(0);
		expect(await plans(headers)).toEqual([]);
		expect((await notify(channel?.token ?? "", "exists")).status).toBe(404);
	});

	it("is polled by the scheduled background sync when the deployment has no public https address, with no channel", async () => {
		const { headers } = await userWithKey("bot");
		const email = newAccount();
		const google = providerAccount("google", email);
		await google.putEvent("first", meetEvent(meetCode(), 2));
		const local = { PUBLIC_BASE_URL: "http://127.0.0.1:8787" };
		// Signed in on a local address (a loopback redirect URI, which Google allows): the callback's sync opens no channel.
		const start = await callLocal(local, headers);
		const res = await arriveLocal(local, await consent(start.authorization_url, email), start.cookie);
		expect(res.status).toBe(302);
		const id = res.headers.get("location")?.match(/calendar=(cal_[0-9a-f]{32})/)?.[1] ?? "";
		expect(id).not.toBe("");
		expect((await google.stats<GoogleStats>()).channels).toEqual([]);

		const added = meetCode();
		await google.putEvent("second", meetEvent(added, 3));
		await env.DB.prepare("UPDATE calendar_connections SET next_sync_at = ? WHERE id = ?")
			.bind(new Date(Date.now() - 1000).toISOString(), id)
			.run();
		await tick(Date.now(), local);
		expect((await plans(headers)).map((m) => m.native_meeting_id)).toContain(added);
		expect((await google.stats<GoogleStats>()).channels).toEqual([]);
	});

	it("keeps the singular /user/calendar routes to ICS feeds: disconnecting there leaves a signed-in calendar alone", async () => {
		const { headers } = await userWithKey("bot");
		const email = newAccount();
		const connection = await signIn(headers, "google", email);
		const single = await call("GET", "/user/calendar", { headers });
		expect(await json(single)).toMatchObject({ ics_url_set: false, ics_url_masked: null });
		expect((await call("PUT", "/user/calendar", { headers, json: { ics_url: null } })).status).toBe(200);
		const listed = await json<{ calendars: { id: string }[] }>(await call("GET", "/user/calendars", { headers }));
		expect(listed.calendars.map((c) => c.id)).toEqual([connection.id]);
	});

	it("renews a channel within a day of its end: a new channel with a new token, the old one stopped", async () => {
		const { headers } = await userWithKey("bot");
		const email = newAccount();
		const google = providerAccount("google", email);
		const connection = await signIn(headers, "google", email);
		const [first] = (await google.stats<GoogleStats>()).channels;
		await env.DB.prepare("UPDATE calendar_connections SET push_expires_at = ? WHERE id = ?")
			.bind(new Date(Date.now() + 3600_000).toISOString(), connection.id)
			.run();
		expect((await syncOf(headers, connection.id)).last_error).toBeNull();
		const channels = (await google.stats<GoogleStats>()).channels;
		expect(channels.map((c) => [c.id === first?.id, c.stopped])).toEqual([
			[true, true],
			[false, false],
		]);
		expect(channels[1]?.token).not.toBe(first?.token);
		const notify = (channel: GoogleStats["channels"][number] | undefined) =>
			SELF.fetch("https://gateway.test/calendars/push/google", {
				method: "POST",
				headers: {
					"X-Goog-Channel-ID": channel?.id ?? "",
					"X-Goog-Channel-Token": channel?.token ?? "",
					"X-Goog-Resource-State": "exists",
				},
			});
		expect((await notify(first)).status).toBe(404);
		expect((await notify(channels[1])).status).toBe(200);
	});
});
