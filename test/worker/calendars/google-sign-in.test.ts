import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { meetCode } from "../../shared/meetings";
import { call, json, userWithKey } from "../support";
import { arrive, consent, meetEvent, newAccount, plans, providerAccount, slot, startSignIn } from "./signed-in";

const TOKEN_TEXT = /\b(at|rt|code)-[A-Za-z0-9_-]{20,}/;

async function callWith(overrides: Partial<Env>, method: string, path: string, headers: Record<string, string>, body?: unknown) {
	const ctx = createExecutionContext();
	const res = await worker.fetch(
		new Request(`https://gateway.test${path}`, {
			method,
			headers: { ...headers, "content-type": "application/json" },
			body: body === undefined ? undefined : JSON.stringify(body),
		}),
		{ ...env, ...overrides } as Env,
		ctx,
	);
	await waitOnExecutionContext(ctx);
	return res;
}

describe("Google Calendar sign-in", () => {
	it("lists both providers as configured, and answers 503 naming the missing setting when one is not", async () => {
		const { headers } = await userWithKey("bot");
		const res = await call("GET", "/user/calendars/providers", { headers });
		expect(await json(res)).toEqual({
			providers: [
				{ id: "google", configured: true },
				{ id: "microsoft", configured: true },
			],
		});
		const bare = await callWith({ GOOGLE_CLIENT_SECRET: undefined }, "GET", "/user/calendars/providers", headers);
		expect(await json(bare)).toEqual({
			providers: [
				{ id: "google", configured: false },
				{ id: "microsoft", configured: true },
			],
		});
		const refused = await callWith({ GOOGLE_CLIENT_SECRET: undefined }, "POST", "/user/calendars/oauth/google", headers, {});
		expect(refused.status).toBe(503);
		expect((await json<{ detail: string }>(refused)).detail).toContain("GOOGLE_CLIENT_SECRET");
		const bodiless = await call("POST", "/user/calendars/oauth/microsoft", { headers });
		expect(bodiless.status).toBe(200);
		expect(new URL((await json<{ authorization_url: string }>(bodiless)).authorization_url).searchParams.get("client_id")).toBe(
			env.MICROSOFT_CLIENT_ID,
		);
		const tx = await userWithKey("tx");
		expect((await call("POST", "/user/calendars/oauth/google", { headers: tx.headers, json: {} })).status).toBe(403);
	});

	it("refuses a return_to off this site and bad fields with 422", async () => {
		const { headers } = await userWithKey("bot");
		for (const body of [
			{ return_to: "https://evil.example/" },
			{ return_to: "//evil.example/" },
			{ return_to: "/\\evil" },
			{ name: " " },
			{ extra: 1 },
		]) {
			const res = await call("POST", "/user/calendars/oauth/google", { headers, json: body });
			expect(res.status, JSON.stringify(body)).toBe(422);
		}
		expect((await call("POST", "/user/calendars/oauth/nextcloud", { headers, json: {} })).status).toBe(422);
	});

	it("signs in with PKCE, seals the tokens, syncs at once and plans the events with meeting links", async () => {
		const { user, headers } = await userWithKey("bot");
		const email = newAccount();
		const google = providerAccount("google", email);
		const [meet, plain] = [meetCode(), meetCode()];
		const at = slot(3);
		await google.putEvent(
			"ev-meet",
			meetEvent(meet, 3, {
				start: { dateTime: at.start },
				end: { dateTime: at.end },
				organizer: { email },
				attendees: [
					{ email, displayName: "Owner" },
					{ email: "ana@example.com", displayName: "Ana" },
				],
			}),
		);
		const { start, end } = slot(5);
		await google.putEvent("ev-zoom", {
			summary: "Zoom call",
			start: { dateTime: start },
			end: { dateTime: end },
			location: "https://us02web.zoom.us/j/81234567890?pwd=abc123",
			organizer: { email: "other@example.com" },
		});
		await google.putEvent("ev-plain", { summary: `Lunch ${plain}`, start: { dateTime: start }, end: { dateTime: end } });
		await google.putEvent("ev-all-day", { ...meetEvent(meetCode(), 0), start: { date: "2030-01-01" }, end: { date: "2030-01-02" } });

		const started = await startSignIn(headers, "google", { name: "Work Google", bot_name: "Scribe", return_to: "/#/calendars" });
		const authorization = new URL(started.authorization_url);
		expect(authorization.pathname).toBe("/o/oauth2/v2/auth");
		expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
			client_id: env.GOOGLE_CLIENT_ID,
			redirect_uri: "https://gateway.test/calendars/oauth/callback",
			response_type: "code",
			code_challenge_method: "S256",
			access_type: "offline",
			state: started.state,
		});
		expect(authorization.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
		const res = await arrive(await consent(started.authorization_url, email), started.cookie);
		expect(res.status).toBe(302);
		const id = res.headers.get("location")?.match(/^\/#\/calendars\?calendar=(cal_[0-9a-f]{32})$/)?.[1];
		expect(id).toBeDefined();

		const listed = await call("GET", "/user/calendars", { headers });
		const text = await listed.text();
		expect(JSON.parse(text).calendars).toEqual([
			{
				id,
				name: "Work Google",
				ics_url_set: false,
				ics_url_masked: null,
				auto_join: true,
				bot_name: "Scribe",
				enabled: true,
				kind: "google",
				account: email,
				auto_join_rules: { organizer_only: false, min_attendees: null },
			},
		]);
		expect(text).not.toMatch(TOKEN_TEXT);
		const stored = await env.DB.prepare("SELECT * FROM calendar_connections WHERE id = ?").bind(id).first<Record<string, unknown>>();
		expect(String(stored?.oauth_tokens_sealed)).toMatch(/^v1\./);
		expect(JSON.stringify(stored)).not.toMatch(TOKEN_TEXT);
		expect(env.GOOGLE_CLIENT_SECRET && JSON.stringify(stored).includes(env.GOOGLE_CLIENT_SECRET)).toBe(false);
		expect(stored?.user_id).toBe(user.id);
		expect((await google.stats<{ exchanges: number }>()).exchanges).toBe(1);

		const stamp = await json<{ last_error: string | null; counts: { created: number } }>(
			await call("GET", `/user/calendars/${id}/sync`, { headers }),
		);
		expect(stamp.last_error).toBeNull();
		expect(stamp.counts.created).toBe(2);
		const made = await plans(headers);
		expect(made.map((m) => [m.platform, m.native_meeting_id, m.data?.title]).sort()).toEqual([
			["google_meet", meet, `Review ${meet}`],
			["zoom", "81234567890", "Zoom call"],
		]);
		expect(made[0]?.data?.calendar_sources).toEqual([{ id, name: "Work Google", auto_join: true, bot_name: "Scribe" }]);
		const meetPlan = made.find((m) => m.platform === "google_meet");
		expect(meetPlan?.status).toBe("scheduled");
		expect(meetPlan?.data?.attendees).toEqual(["Owner", "Ana"]);
		expect(meetPlan?.data.scheduled_at).toBe(at.start);
	});

	it("never finishes a sign-in twice, with an unknown or expired state, or after the user declines", async () => {
		const { user, headers } = await userWithKey("bot");
		const email = newAccount();
		const started = await startSignIn(headers, "google", { return_to: "/#/calendars" });
		const callback = await consent(started.authorization_url, email);
		expect((await arrive(callback, started.cookie)).status).toBe(302);
		const replay = await arrive(callback, started.cookie);
		expect(replay.status).toBe(400);
		expect(await replay.text()).toContain("expired");

		const forged = new URL(callback);
		forged.searchParams.set("state", "not-a-state-we-gave");
		expect((await arrive(forged)).status).toBe(400);
		expect((await arrive(new URL("https://gateway.test/calendars/oauth/callback"))).status).toBe(400);

		const late = await startSignIn(headers, "google", { return_to: "/#/calendars" });
		await env.DB.prepare("UPDATE calendar_oauth_states SET expires_at = ? WHERE user_id = ?")
			.bind(new Date(Date.now() - 1000).toISOString(), user.id)
			.run();
		expect((await arrive(await consent(late.authorization_url, email), late.cookie)).status).toBe(400);

		const declined = await startSignIn(headers, "google", { return_to: "/#/calendars" });
		const denied = await arrive(await consent(declined.authorization_url, email, "deny"), declined.cookie);
		expect(denied.status).toBe(302);
		expect(denied.headers.get("location")).toBe("/#/calendars?calendar_error=access_denied");
		const calendars = await json<{ calendars: unknown[] }>(await call("GET", "/user/calendars", { headers }));
		expect(calendars.calendars).toHaveLength(1);
	});

	it("finishes a sign-in only in the browser that started it (its cookie), so a sign-in link cannot be handed to someone else", async () => {
		const { headers } = await userWithKey("bot");
		const started = await startSignIn(headers, "google", { return_to: "/#/calendars" });
		expect(started.cookie).toMatch(/^calendar_sign_in_[0-9a-f]{12}=[A-Za-z0-9_-]{32}$/);
		const res = await call("POST", "/user/calendars/oauth/google", { headers, json: {} });
		expect(res.headers.get("set-cookie")).toMatch(/; Path=\/calendars\/oauth\/callback; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
		const callback = await consent(started.authorization_url, newAccount());
		const elsewhere = await arrive(callback);
		expect(elsewhere.status).toBe(400);
		expect(await elsewhere.text()).toContain("another browser");
		const forged = await arrive(callback, `${started.cookie.split("=")[0]}=guessed-value`);
		expect(forged.status).toBe(400);
		expect((await json<{ calendars: unknown[] }>(await call("GET", "/user/calendars", { headers }))).calendars).toEqual([]);
	});

	it("is refused a code exchanged without its verifier or client secret: the local Google checks PKCE and the client", async () => {
		const { headers } = await userWithKey("bot");
		const email = newAccount();
		const started = await startSignIn(headers, "google", { return_to: "/#/calendars" });
		const callback = await consent(started.authorization_url, email);
		const direct = await fetch(`${new URL(started.authorization_url).origin}/token`, {
			method: "POST",
			headers: { "content-type": "application/x-www-form-urlencoded" },
			body: new URLSearchParams({
				code: callback.searchParams.get("code") ?? "",
				client_id: env.GOOGLE_CLIENT_ID ?? "",
				client_secret: env.GOOGLE_CLIENT_SECRET ?? "",
				redirect_uri: "https://gateway.test/calendars/oauth/callback",
				grant_type: "authorization_code",
				code_verifier: "a".repeat(43),
			}),
		});
		expect(direct.status).toBe(400);
		expect(await direct.json()).toEqual({ error: "invalid_grant", error_description: "Invalid code verifier." });
		const wrongClient = await fetch(`${new URL(started.authorization_url).origin}/token`, {
			method: "POST",
			headers: { "content-type": "application/x-www-form-urlencoded" },
			body: new URLSearchParams({
				grant_type: "authorization_code",
				code: "x",
				client_id: env.GOOGLE_CLIENT_ID ?? "",
				client_secret: "guess",
			}),
		});
		expect(wrongClient.status).toBe(401);
		// The code was spent by the failed attempt: the gateway's own exchange now fails, and says so.
		const res = await arrive(callback, started.cookie);
		expect(res.headers.get("location")).toBe("/#/calendars?calendar_error=sign_in_failed");
	});
});
