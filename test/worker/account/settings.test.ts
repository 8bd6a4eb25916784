import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env";
import { loadSettings, resolveSettings, webhookEventEnabled } from "../../../src/settings/account-settings";
import { call, json, userWithKey } from "../support";

const MODEL_KEY = "sk-live-9f8e7d6c5b4a39281706abcd";
const TX_TOKEN = "tx-token-0123456789-WXYZ";
const HOOK_SECRET = "whsec_5f4e3d2c1b0a99887766-QRST";

/** Every body a test saw, so it can assert the clear secrets never left. */
function recorder() {
	const bodies: string[] = [];
	return {
		bodies,
		async send(method: string, path: string, headers: Record<string, string>, body?: unknown) {
			const res = await call(method, path, { headers, json: body });
			const text = await res.text();
			bodies.push(text);
			return { status: res.status, body: text ? JSON.parse(text) : null };
		},
	};
}

async function storedRow(userId: number): Promise<string> {
	return JSON.stringify(await env.DB.prepare("SELECT * FROM account_settings WHERE user_id = ?").bind(userId).first());
}

describe("model settings", () => {
	it("reads unset fields as null before anything is stored", async () => {
		const { headers } = await userWithKey();
		const res = await call("GET", "/user/models", { headers });
		expect(await res.json()).toEqual({ mode: null, model: null, meeting_model: null, base_url: null, api_key_set: false, api_key: null });
	});

	it("updates partially, masks the key to its last four characters, and never returns it in clear", async () => {
		const { headers } = await userWithKey();
		const r = recorder();
		const put = await r.send("PUT", "/user/models", headers, { mode: "custom", model: "gpt-x", api_key: MODEL_KEY });
		expect(put.status).toBe(200);
		expect(put.body).toEqual({
			mode: "custom",
			model: "gpt-x",
			meeting_model: null,
			base_url: null,
			api_key_set: true,
			api_key: "****abcd",
		});

		const second = await r.send("PUT", "/user/models", headers, { base_url: "https://models.example.com/v1" });
		expect(second.body).toMatchObject({ mode: "custom", model: "gpt-x", base_url: "https://models.example.com/v1", api_key: "****abcd" });
		const got = await r.send("GET", "/user/models", headers);
		expect(got.body).toEqual(second.body);
		for (const body of r.bodies) expect(body).not.toContain(MODEL_KEY);
	});

	it("stores the key sealed, not in clear", async () => {
		const { user, headers } = await userWithKey();
		await call("PUT", "/user/models", { headers, json: { api_key: MODEL_KEY } });
		const row = await storedRow(user.id);
		expect(row).toContain("v1.");
		expect(row).not.toContain(MODEL_KEY);
		expect(row).not.toContain("abcd");
	});

	it("clears a field with an empty string, and removes the override once every field is clear", async () => {
		const { user, headers } = await userWithKey();
		await call("PUT", "/user/models", { headers, json: { model: "m1", api_key: MODEL_KEY } });
		const cleared = await json(await call("PUT", "/user/models", { headers, json: { api_key: "" } }));
		expect(cleared).toMatchObject({ model: "m1", api_key_set: false, api_key: null });
		await call("PUT", "/user/models", { headers, json: { model: "" } });
		expect(await env.DB.prepare("SELECT count(*) AS n FROM account_settings WHERE user_id = ?").bind(user.id).first("n")).toBe(0);
	});

	it.each([
		["a mode outside subscription/custom", { mode: "free" }, "mode"],
		["a base_url that is not http(s)", { base_url: "ftp://models.example.com" }, "base_url"],
		["a base_url without a hostname", { base_url: "https://" }, "base_url"],
		["a string over 2,048 characters", { model: "m".repeat(2049) }, "model"],
	])("refuses %s with 422 and changes nothing", async (_label, body, field) => {
		const { user, headers } = await userWithKey();
		await call("PUT", "/user/models", { headers, json: { model: "kept" } });
		const before = await storedRow(user.id);
		const res = await call("PUT", "/user/models", { headers, json: body });
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: { loc: string[] }[] }>(res);
		expect(detail.map((d) => d.loc.join("."))).toContain(`body.${field}`);
		expect(await storedRow(user.id)).toBe(before);
	});

	it("accepts a string of exactly 2,048 characters", async () => {
		const { headers } = await userWithKey();
		const res = await call("PUT", "/user/models", { headers, json: { model: "m".repeat(2048) } });
		expect(res.status).toBe(200);
	});
});

/** A new account's relay usage: nothing sent today, and the deployment's daily limit. */
const NO_USAGE = { day: new Date().toISOString().slice(0, 10), relayed_seconds: 0, daily_limit_seconds: 864_000 };

describe("transcription settings", () => {
	it("updates url and token partially, masks the token, and clears with an empty string", async () => {
		const { headers } = await userWithKey();
		const r = recorder();
		const put = await r.send("PUT", "/user/transcription", headers, { url: "https://stt.example.com", token: TX_TOKEN });
		expect(put.body).toEqual({
			engine: null,
			url: "https://stt.example.com",
			token_set: true,
			token: "****WXYZ",
			vocabulary: [],
			usage: NO_USAGE,
		});
		const keep = await r.send("PUT", "/user/transcription", headers, { url: "http://stt.internal:9000/v1" });
		expect(keep.body).toEqual({
			engine: null,
			url: "http://stt.internal:9000/v1",
			token_set: true,
			token: "****WXYZ",
			vocabulary: [],
			usage: NO_USAGE,
		});
		const clear = await r.send("PUT", "/user/transcription", headers, { token: "" });
		expect(clear.body).toEqual({
			engine: null,
			url: "http://stt.internal:9000/v1",
			token_set: false,
			token: null,
			vocabulary: [],
			usage: NO_USAGE,
		});
		for (const body of r.bodies) expect(body).not.toContain(TX_TOKEN);
	});

	it("refuses a url that is not http(s) with a hostname", async () => {
		const { headers } = await userWithKey();
		for (const url of ["stt.example.com", "javascript:alert(1)", "http://"]) {
			expect((await call("PUT", "/user/transcription", { headers, json: { url } })).status, url).toBe(422);
		}
	});
});

describe("webhook settings", () => {
	it("requires webhook_url on every write", async () => {
		const { headers } = await userWithKey();
		const res = await call("PUT", "/user/webhook", { headers, json: { webhook_secret: HOOK_SECRET } });
		expect(res.status).toBe(422);
		expect((await call("GET", "/user/webhook", { headers }).then((x) => x.json())) as object).toMatchObject({ webhook_secret_set: false });
	});

	it("stores url, secret and filter, answers without the secret, and masks it on read", async () => {
		const { user, headers } = await userWithKey();
		const r = recorder();
		const put = await r.send("PUT", "/user/webhook", headers, {
			webhook_url: "https://hooks.example.com/in",
			webhook_secret: HOOK_SECRET,
			webhook_events: { "meeting.started": true, "meeting.completed": false },
		});
		expect(put.status).toBe(200);
		expect(put.body).toEqual({
			user_id: user.id,
			email: user.email,
			webhook_url: "https://hooks.example.com/in",
			webhook_secret_set: true,
			webhook_events: { "meeting.started": true, "meeting.completed": false },
		});
		const got = await r.send("GET", "/user/webhook", headers);
		expect(got.body).toEqual({
			webhook_url: "https://hooks.example.com/in",
			webhook_secret_set: true,
			webhook_secret: "****QRST",
			webhook_events: { "meeting.started": true, "meeting.completed": false },
		});
		for (const body of r.bodies) expect(body).not.toContain(HOOK_SECRET);
		expect(await storedRow(user.id)).not.toContain(HOOK_SECRET);
	});

	it("reads an unset filter as {} (every event at its default), on GET and in the PUT answer", async () => {
		const { user, headers } = await userWithKey();
		expect(await json(await call("GET", "/user/webhook", { headers }))).toEqual({
			webhook_url: null,
			webhook_secret_set: false,
			webhook_secret: null,
			webhook_events: {},
		});
		const put = await call("PUT", "/user/webhook", { headers, json: { webhook_url: "https://hooks.example.com/in" } });
		expect(await json(put)).toEqual({
			user_id: user.id,
			email: user.email,
			webhook_url: "https://hooks.example.com/in",
			webhook_secret_set: false,
			webhook_events: {},
		});
		expect(await json(await call("GET", "/user/webhook", { headers }))).toMatchObject({ webhook_events: {} });
		// Nothing was stored for the filter: it still acts as the default.
		const stored = await loadSettings(env, user.id);
		expect(stored.webhookEvents).toBeNull();
		expect(webhookEventEnabled(stored.webhookEvents, "meeting.completed")).toBe(true);
		expect(webhookEventEnabled(stored.webhookEvents, "meeting.started")).toBe(false);
	});

	it("keeps the stored secret when a write sends an empty one, and replaces the url", async () => {
		const { headers } = await userWithKey();
		await call("PUT", "/user/webhook", { headers, json: { webhook_url: "https://a.example.com", webhook_secret: HOOK_SECRET } });
		const res = await json(
			await call("PUT", "/user/webhook", { headers, json: { webhook_url: "https://b.example.com", webhook_secret: "" } }),
		);
		expect(res).toMatchObject({ webhook_url: "https://b.example.com", webhook_secret_set: true });
	});

	it("refuses a non-boolean filter value, and drops event types it does not know", async () => {
		const { user, headers } = await userWithKey();
		const refused = await call("PUT", "/user/webhook", {
			headers,
			json: { webhook_url: "https://a.example.com", webhook_events: { "meeting.started": "yes" } },
		});
		expect(refused.status).toBe(422);
		expect(await storedRow(user.id)).toBe("null");

		// The reference takes any map; an event type this service never sends could match nothing, so it is not kept.
		const res = await call("PUT", "/user/webhook", {
			headers,
			json: { webhook_url: "https://a.example.com", webhook_events: { "recording.ready": true, "meeting.started": true } },
		});
		expect(res.status).toBe(200);
		expect(await json(res)).toMatchObject({ webhook_events: { "meeting.started": true } });
		expect(await json(await call("GET", "/user/webhook", { headers }))).toMatchObject({ webhook_events: { "meeting.started": true } });
		expect((await loadSettings(env, user.id)).webhookEvents).toEqual({ "meeting.started": true });
	});
});

describe("webhook delivery history", () => {
	it("returns the account's rows newest first, honours limit, and refuses limits outside 1 to 500", async () => {
		const { user, headers } = await userWithKey();
		const other = await userWithKey();
		const insert = env.DB.prepare(
			"INSERT INTO webhook_deliveries (user_id, event_type, event_id, target_host, outcome, status_code, attempt, meeting_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		);
		await env.DB.batch([
			insert.bind(user.id, "meeting.completed", "evt-1", "hooks.example.com", "delivered", 200, 1, 7, "2026-01-01T00:00:00Z"),
			insert.bind(user.id, "meeting.completed", "evt-2", "hooks.example.com", "queued", 503, 1, 8, "2026-01-01T00:01:00Z"),
			insert.bind(other.user.id, "meeting.completed", "evt-x", "elsewhere.example.com", "delivered", 200, 1, 9, "2026-01-01T00:02:00Z"),
		]);
		const all = await json<{ deliveries: { event_id: string }[] }>(await call("GET", "/user/webhook/deliveries", { headers }));
		expect(all.deliveries.map((d) => d.event_id)).toEqual(["evt-2", "evt-1"]);
		expect(all.deliveries[0]).toEqual({
			event_type: "meeting.completed",
			event_id: "evt-2",
			target_host: "hooks.example.com",
			outcome: "queued",
			status_code: 503,
			attempt: 1,
			meeting_id: 8,
			created_at: "2026-01-01T00:01:00Z",
		});
		const one = await json<{ deliveries: unknown[] }>(await call("GET", "/user/webhook/deliveries?limit=1", { headers }));
		expect(one.deliveries).toHaveLength(1);
		for (const limit of ["0", "501", "abc"]) {
			expect((await call("GET", `/user/webhook/deliveries?limit=${limit}`, { headers })).status, limit).toBe(422);
		}
	});

	it("is an empty list when no attempt is recorded", async () => {
		const { headers } = await userWithKey();
		expect(await (await call("GET", "/user/webhook/deliveries", { headers })).json()).toEqual({ deliveries: [], next_cursor: null });
	});
});

describe("settings resolution over deployment defaults", () => {
	it("takes a set account field and falls through to the deployment for an unset one", async () => {
		const { user, headers } = await userWithKey();
		await call("PUT", "/user/models", { headers, json: { model: "account-model", api_key: MODEL_KEY } });
		await call("PUT", "/user/transcription", { headers, json: { token: TX_TOKEN } });
		const deployment = {
			...env,
			DEFAULT_MODEL: "deploy-model",
			DEFAULT_MEETING_MODEL: "deploy-meeting-model",
			DEFAULT_MODEL_API_KEY: "deploy-key",
			TRANSCRIPTION_URL: "https://stt.deploy.example.com",
			TRANSCRIPTION_TOKEN: "deploy-token",
		} as Env;
		const resolved = await resolveSettings(deployment, await loadSettings(deployment, user.id));
		expect(resolved.models).toEqual({
			mode: null,
			model: "account-model",
			meeting_model: "deploy-meeting-model",
			base_url: null,
			api_key: MODEL_KEY,
			base_url_owner: null,
		});
		expect(resolved.transcription).toEqual({
			url: "https://stt.deploy.example.com",
			token: TX_TOKEN,
			owner: "deployment",
			engine: null,
			provider_key: null,
			vocabulary: [],
		});
	});

	it("pairs each deployment credential with the deployment's own URL only", async () => {
		const deployment = {
			...env,
			DEFAULT_MODEL_BASE_URL: "https://models.deploy.example.com/v1",
			DEFAULT_MODEL_API_KEY: "deploy-key",
			TRANSCRIPTION_URL: "https://stt.deploy.example.com",
			TRANSCRIPTION_TOKEN: "deploy-token",
			DEFAULT_WEBHOOK_URL: "https://hooks.deploy.example.com",
			DEFAULT_WEBHOOK_SECRET: "deploy-secret",
		} as Env;
		const resolve = async (userId: number) => resolveSettings(deployment, await loadSettings(deployment, userId));

		const nothingSet = await userWithKey();
		const defaults = await resolve(nothingSet.user.id);
		expect(defaults.models).toMatchObject({ base_url: "https://models.deploy.example.com/v1", api_key: "deploy-key" });
		expect(defaults.transcription).toMatchObject({ url: "https://stt.deploy.example.com", token: "deploy-token" });
		expect(defaults.webhook).toMatchObject({ url: "https://hooks.deploy.example.com", secret: "deploy-secret" });

		const ownUrls = await userWithKey();
		await call("PUT", "/user/models", { headers: ownUrls.headers, json: { base_url: "https://models.account.example.com" } });
		await call("PUT", "/user/transcription", { headers: ownUrls.headers, json: { url: "https://stt.account.example.com" } });
		await call("PUT", "/user/webhook", { headers: ownUrls.headers, json: { webhook_url: "https://hooks.account.example.com" } });
		const own = await resolve(ownUrls.user.id);
		expect(own.models).toMatchObject({ base_url: "https://models.account.example.com", api_key: null });
		expect(own.transcription).toMatchObject({ url: "https://stt.account.example.com", token: null });
		expect(own.webhook).toMatchObject({ url: "https://hooks.account.example.com", secret: null });

		const ownKeys = await userWithKey();
		await call("PUT", "/user/models", { headers: ownKeys.headers, json: { api_key: MODEL_KEY } });
		await call("PUT", "/user/transcription", { headers: ownKeys.headers, json: { token: TX_TOKEN } });
		const keys = await resolve(ownKeys.user.id);
		expect(keys.models).toMatchObject({ base_url: "https://models.deploy.example.com/v1", api_key: MODEL_KEY });
		expect(keys.transcription).toMatchObject({ url: "https://stt.deploy.example.com", token: TX_TOKEN });
	});

	it("fires only meeting.completed when no filter was set, and honours explicit entries", () => {
		expect(webhookEventEnabled(null, "meeting.completed")).toBe(true);
		expect(webhookEventEnabled(null, "meeting.started")).toBe(false);
		expect(webhookEventEnabled({ "meeting.completed": false }, "meeting.completed")).toBe(false);
		expect(webhookEventEnabled({ "bot.failed": true }, "bot.failed")).toBe(true);
		expect(webhookEventEnabled({ "bot.failed": true }, "meeting.completed")).toBe(true);
	});
});
