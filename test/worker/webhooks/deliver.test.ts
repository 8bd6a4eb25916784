import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { attemptDelivery, DELIVERY_HISTORY_KEPT, recordDelivery } from "../../../src/webhooks/deliver";
import { verifyWebhook } from "../../../src/webhooks/signature";
import { call } from "../support";
import { brokenD1, deliveryRows, HOOK_SECRET, userWithWebhook, webhookEvent } from "./fixtures";
import { newHook, received, script } from "./receiver";

const FIRST = { attempt: 1, willRetry: true };

describe("a delivery attempt", () => {
	it("POSTs the envelope, signed, and records a delivered row with the host only", async () => {
		const hook = newHook();
		const { user, headers } = await userWithWebhook(hook.url);
		const event = await webhookEvent(user.id);

		const report = await attemptDelivery(env, user.id, event, FIRST);

		expect(report).toEqual({
			outcome: "delivered",
			retry: false,
			status_code: 200,
			target_host: "127.0.0.1",
			recorded: true,
			duration_ms: expect.any(Number),
			error: null,
		});
		const [request, ...more] = await received(hook.path);
		expect(more).toHaveLength(0);
		expect(request?.method).toBe("POST");
		expect(request?.headers["content-type"]).toBe("application/json");
		expect(request?.body).toBe(event.body);
		expect(JSON.parse(request?.body ?? "{}")).toMatchObject({ event_id: event.event_id, event_type: "meeting.completed" });
		expect(await verifyWebhook(HOOK_SECRET, request?.headers ?? {}, request?.body ?? "", { toleranceSeconds: 60 })).toMatchObject({
			ok: true,
		});

		expect(await deliveryRows(user.id)).toEqual([
			{
				event_type: "meeting.completed",
				event_id: event.event_id,
				target_host: "127.0.0.1",
				outcome: "delivered",
				status_code: 200,
				attempt: 1,
				meeting_id: event.meeting_id,
			},
		]);
		const history = await call("GET", "/user/webhook/deliveries", { headers });
		const text = await history.text();
		expect(text).toContain('"outcome":"delivered"');
		expect(text).not.toContain(hook.path);
		expect(text).not.toContain(HOOK_SECRET);
	});

	it("sends no signature headers when the account has no secret", async () => {
		const hook = newHook();
		const { user } = await userWithWebhook(hook.url, { secret: null });
		expect((await attemptDelivery(env, user.id, await webhookEvent(user.id), FIRST)).outcome).toBe("delivered");
		const [request] = await received(hook.path);
		expect(request?.headers).not.toHaveProperty("x-webhook-signature");
		expect(request?.headers).not.toHaveProperty("x-webhook-timestamp");
	});

	it("never signs with the deployment's secret for a URL the account chose", async () => {
		const deploymentSecret = env.DEFAULT_WEBHOOK_SECRET ?? "";
		expect(deploymentSecret).not.toBe("");
		const hook = newHook();
		const { user } = await userWithWebhook(hook.url, { secret: null });
		const event = await webhookEvent(user.id);
		expect((await attemptDelivery(env, user.id, event, FIRST)).outcome).toBe("delivered");
		const [request] = await received(hook.path);
		expect(request?.headers).not.toHaveProperty("x-webhook-signature");
		const signedWithDeployment = await verifyWebhook(deploymentSecret, request?.headers ?? {}, request?.body ?? "", {
			toleranceSeconds: 60,
		});
		expect(signedWithDeployment.ok).toBe(false);
	});

	it("signs with the deployment's secret when delivering to the deployment's own URL", async () => {
		const hook = newHook();
		const { user } = await userWithWebhook(null);
		const deployment = { ...env, DEFAULT_WEBHOOK_URL: hook.url, DEFAULT_WEBHOOK_SECRET: "deployment-secret-for-own-receiver" };
		expect((await attemptDelivery(deployment, user.id, await webhookEvent(user.id), FIRST)).outcome).toBe("delivered");
		const [request] = await received(hook.path);
		const verified = await verifyWebhook("deployment-secret-for-own-receiver", request?.headers ?? {}, request?.body ?? "", {
			toleranceSeconds: 60,
		});
		expect(verified.ok).toBe(true);
	});

	it("does nothing and records nothing when no webhook URL is set", async () => {
		const { user } = await userWithWebhook(null);
		const report = await attemptDelivery(env, user.id, await webhookEvent(user.id), FIRST);
		expect(report).toMatchObject({ outcome: "no_target", retry: false, recorded: false });
		expect(await deliveryRows(user.id)).toEqual([]);
	});
});

describe("the event filter", () => {
	it("delivers only meeting.completed when no filter was ever set", async () => {
		const hook = newHook();
		const { user } = await userWithWebhook(hook.url);
		const outcomes: Record<string, string> = {};
		for (const type of ["meeting.started", "meeting.completed", "bot.failed", "meeting.status_change"] as const) {
			outcomes[type] = (await attemptDelivery(env, user.id, await webhookEvent(user.id, type), FIRST)).outcome;
		}
		expect(outcomes).toEqual({
			"meeting.started": "suppressed",
			"meeting.completed": "delivered",
			"bot.failed": "suppressed",
			"meeting.status_change": "suppressed",
		});
		expect((await received(hook.path)).map((r) => JSON.parse(r.body).event_type)).toEqual(["meeting.completed"]);
		expect((await deliveryRows(user.id)).map((r) => [r.event_type, r.outcome, r.target_host])).toEqual([
			["meeting.started", "suppressed", "127.0.0.1"],
			["meeting.completed", "delivered", "127.0.0.1"],
			["bot.failed", "suppressed", "127.0.0.1"],
			["meeting.status_change", "suppressed", "127.0.0.1"],
		]);
	});

	it("suppresses an explicit false and delivers an explicit true; unmentioned events keep the default", async () => {
		const hook = newHook();
		const { user } = await userWithWebhook(hook.url, { events: { "meeting.completed": false, "bot.failed": true } });
		expect((await attemptDelivery(env, user.id, await webhookEvent(user.id, "meeting.completed"), FIRST)).outcome).toBe("suppressed");
		expect((await attemptDelivery(env, user.id, await webhookEvent(user.id, "bot.failed"), FIRST)).outcome).toBe("delivered");
		expect((await attemptDelivery(env, user.id, await webhookEvent(user.id, "meeting.started"), FIRST)).outcome).toBe("suppressed");
		expect((await received(hook.path)).map((r) => JSON.parse(r.body).event_type)).toEqual(["bot.failed"]);
	});
});

describe("the outbound guard", () => {
	it("blocks a loopback target before any request leaves when private targets are not allowed", async () => {
		const hook = newHook();
		const { user } = await userWithWebhook(hook.url);
		const strictEnv = { ...env, OUTBOUND_ALLOW_PRIVATE: "false" };
		const report = await attemptDelivery(strictEnv, user.id, await webhookEvent(user.id), FIRST);
		expect(report).toEqual({
			outcome: "blocked",
			retry: false,
			status_code: null,
			target_host: "127.0.0.1",
			recorded: true,
			duration_ms: null,
			error: "the outbound guard refused the address",
		});
		expect(await received(hook.path)).toEqual([]);
		expect((await deliveryRows(user.id)).map((r) => r.outcome)).toEqual(["blocked"]);
	});
});

describe("classifying the receiver's answer", () => {
	const ANSWERS: [string, number, boolean, string, boolean][] = [
		["204 is delivered", 204, true, "delivered", false],
		["503 is queued when a retry follows", 503, true, "queued", true],
		["503 is failed on the last attempt", 503, false, "failed", false],
		["500 is queued", 500, true, "queued", true],
		["429 is queued", 429, true, "queued", true],
		["408 is queued", 408, true, "queued", true],
		["404 is failed at once", 404, true, "failed", false],
		["400 is failed at once", 400, true, "failed", false],
		["410 is failed at once", 410, true, "failed", false],
		["a redirect is not followed and fails", 302, true, "failed", false],
	];

	it.each(ANSWERS)("%s", async (_name, status, willRetry, outcome, retry) => {
		const hook = newHook();
		await script(hook.path, [{ status }]);
		const { user } = await userWithWebhook(hook.url);
		const report = await attemptDelivery(env, user.id, await webhookEvent(user.id), { attempt: 3, willRetry });
		expect(report).toMatchObject({ outcome, retry, status_code: status, recorded: true });
		expect(await received(hook.path)).toHaveLength(1);
		expect(await deliveryRows(user.id)).toMatchObject([{ outcome, status_code: status, attempt: 3 }]);
	});

	it("never follows a redirect's Location, not even to another receiver path", async () => {
		const hook = newHook();
		const elsewhere = newHook();
		const { user } = await userWithWebhook(hook.url);
		await script(hook.path, [{ status: 307, headers: { location: elsewhere.url } }]);
		const report = await attemptDelivery(env, user.id, await webhookEvent(user.id), FIRST);
		expect(report).toMatchObject({ outcome: "failed", retry: false, status_code: 307 });
		expect(await received(elsewhere.path)).toEqual([]);
	});

	it("queues a transport error (nothing listening)", async () => {
		const { user } = await userWithWebhook("http://127.0.0.1:9/nothing-here");
		const report = await attemptDelivery(env, user.id, await webhookEvent(user.id), FIRST);
		expect(report).toMatchObject({ outcome: "queued", retry: true, status_code: null, recorded: true });
		expect(await deliveryRows(user.id)).toMatchObject([{ outcome: "queued", status_code: null }]);
	});

	it("queues a receiver that answers after the timeout", async () => {
		const hook = newHook();
		await script(hook.path, [{ status: 200, delay_ms: 1500 }]);
		const { user } = await userWithWebhook(hook.url);
		const started = Date.now();
		const report = await attemptDelivery(env, user.id, await webhookEvent(user.id), { ...FIRST, timeoutMs: 200 });
		expect(Date.now() - started).toBeLessThan(1400);
		expect(report).toMatchObject({ outcome: "queued", retry: true, status_code: null });
		expect(await received(hook.path)).toHaveLength(1);
	});
});

describe("the delivery history", () => {
	it(`keeps the newest ${DELIVERY_HISTORY_KEPT} rows of an account and leaves other accounts alone`, async () => {
		const { user } = await userWithWebhook("https://hooks.example.com/in");
		const { user: other } = await userWithWebhook("https://hooks.example.com/in");
		const event = await webhookEvent(user.id);
		const clock = { now: () => new Date() };
		expect(
			await recordDelivery(env.DB, other.id, event, { host: "hooks.example.com", outcome: "delivered", status: 200, attempt: 1, clock }),
		).toBe(true);
		for (let attempt = 1; attempt <= DELIVERY_HISTORY_KEPT + 5; attempt++) {
			await recordDelivery(env.DB, user.id, event, { host: "hooks.example.com", outcome: "queued", status: 503, attempt, clock });
		}
		const rows = await deliveryRows(user.id);
		expect(rows).toHaveLength(DELIVERY_HISTORY_KEPT);
		expect(rows[0]?.attempt).toBe(6);
		expect(rows.at(-1)?.attempt).toBe(DELIVERY_HISTORY_KEPT + 5);
		expect(await deliveryRows(other.id)).toHaveLength(1);
	});

	it("reports, rather than throws, a row that D1 refuses", async () => {
		const { user } = await userWithWebhook("https://hooks.example.com/in");
		const row = { host: "hooks.example.com", outcome: "delivered" as const, status: 200, attempt: 1, clock: { now: () => new Date() } };
		expect(await recordDelivery(brokenD1("writes"), user.id, await webhookEvent(user.id), row)).toBe(false);
		expect(await deliveryRows(user.id)).toEqual([]);
	});

	it("keeps the outcome of an attempt whose row cannot be written", async () => {
		const hook = newHook();
		await script(hook.path, [{ status: 503 }]);
		const { user } = await userWithWebhook(hook.url);
		const report = await attemptDelivery({ ...env, DB: brokenD1("writes") }, user.id, await webhookEvent(user.id), FIRST);
		expect(report).toMatchObject({ outcome: "queued", retry: true, status_code: 503, recorded: false });
	});

	it("queues without sending when the settings cannot be read", async () => {
		const hook = newHook();
		const { user } = await userWithWebhook(hook.url);
		const report = await attemptDelivery({ ...env, DB: brokenD1("all") }, user.id, await webhookEvent(user.id), FIRST);
		expect(report).toEqual({
			outcome: "queued",
			retry: true,
			status_code: null,
			target_host: null,
			recorded: false,
			duration_ms: null,
			error: "the account's settings could not be read",
		});
		expect(await received(hook.path)).toEqual([]);
	});
});
