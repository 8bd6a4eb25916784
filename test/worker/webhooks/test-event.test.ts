/**
 * POST /user/webhook/test (docs/webhooks.md#test-event) against the local receiver: one signed
 * `webhook.test` event to the account's URL by the normal delivery path (outbound guard, signature,
 * history row), answered with its result; and GET /user/webhook/deliveries a page at a time.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { attemptDelivery } from "../../../src/webhooks/deliver";
import { verifyWebhook } from "../../../src/webhooks/signature";
import { call, json } from "../support";
import { deliveryRows, HOOK_SECRET, userWithWebhook, webhookEvent } from "./fixtures";
import { newHook, received, script } from "./receiver";

interface TestResult {
	event_id: string;
	outcome: string;
	status_code: number | null;
	duration_ms: number | null;
	error: string | null;
	target_host: string;
}

const sendTest = async (headers: Record<string, string>) => {
	const res = await call("POST", "/user/webhook/test", { headers });
	return { status: res.status, body: await json<TestResult & { detail?: string }>(res) };
};

describe("POST /user/webhook/test", () => {
	it("sends a signed webhook.test to the account's URL, even with every event filtered off, and answers with its result", async () => {
		const hook = newHook();
		const { user, headers } = await userWithWebhook(hook.url, { events: { "meeting.completed": false } });
		const { status, body } = await sendTest(headers);
		expect(status).toBe(200);
		expect(body).toEqual({
			event_id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
			outcome: "delivered",
			status_code: 200,
			duration_ms: expect.any(Number),
			error: null,
			target_host: "127.0.0.1",
		});
		const [request, ...more] = await received(hook.path);
		expect(more).toHaveLength(0);
		const envelope = JSON.parse(request?.body ?? "{}");
		expect(envelope).toMatchObject({ event_id: body.event_id, event_type: "webhook.test", data: { user_id: user.id } });
		expect(Object.keys(envelope)).toEqual(["event_id", "event_type", "api_version", "created_at", "data"]);
		expect(await verifyWebhook(HOOK_SECRET, request?.headers ?? {}, request?.body ?? "", { toleranceSeconds: 60 })).toMatchObject({
			ok: true,
		});
		expect(
			await verifyWebhook("whsec_not-the-secret", request?.headers ?? {}, request?.body ?? "", { toleranceSeconds: 60 }),
		).toMatchObject({ ok: false });
		// Logged like every delivery, the host only.
		expect(await deliveryRows(user.id)).toEqual([
			{
				event_type: "webhook.test",
				event_id: body.event_id,
				target_host: "127.0.0.1",
				outcome: "delivered",
				status_code: 200,
				attempt: 1,
				meeting_id: null,
			},
		]);
		// Each press is its own event.
		expect((await sendTest(headers)).body.event_id).not.toBe(body.event_id);
	});

	it("says what the receiver answered when it refuses, and why no answer came when it cannot be reached", async () => {
		const hook = newHook();
		const { headers } = await userWithWebhook(hook.url);
		await script(hook.path, [{ status: 503 }]);
		expect((await sendTest(headers)).body).toMatchObject({ outcome: "failed", status_code: 503, error: null });
		// No retry: the test is tried once.
		expect(await received(hook.path)).toHaveLength(1);

		const gone = await userWithWebhook("http://127.0.0.1:9/hook");
		const unreachable = (await sendTest(gone.headers)).body;
		expect(unreachable).toMatchObject({ outcome: "failed", status_code: null, target_host: "127.0.0.1" });
		expect(unreachable.error).toMatch(/connection failed|no answer within/);
		expect(JSON.stringify(unreachable)).not.toContain(":9/hook");
	});

	it("is 409 without a webhook URL, and the secret never appears in the answer", async () => {
		const { headers } = await userWithWebhook(null);
		expect(await sendTest(headers)).toEqual({ status: 409, body: { detail: "No webhook URL is set: save one above, then send a test" } });
		const hook = newHook();
		const signed = await userWithWebhook(hook.url);
		const res = await call("POST", "/user/webhook/test", { headers: signed.headers });
		expect(await res.text()).not.toContain(HOOK_SECRET);
	});
});

describe("GET /user/webhook/deliveries, paged", () => {
	it("walks the history newest first, a page at a time, with a cursor until the last page", async () => {
		const hook = newHook();
		const { user, headers } = await userWithWebhook(hook.url);
		for (let i = 0; i < 5; i++) await attemptDelivery(env, user.id, await webhookEvent(user.id), { attempt: i + 1, willRetry: true });
		const page = async (query: string) =>
			json<{ deliveries: { attempt: number }[]; next_cursor: string | null }>(
				await call("GET", `/user/webhook/deliveries?${query}`, { headers }),
			);
		const first = await page("limit=2");
		expect(first.deliveries.map((d) => d.attempt)).toEqual([5, 4]);
		expect(first.next_cursor).toMatch(/^\d+$/);
		const second = await page(`limit=2&cursor=${first.next_cursor}`);
		expect(second.deliveries.map((d) => d.attempt)).toEqual([3, 2]);
		const last = await page(`limit=2&cursor=${second.next_cursor}`);
		expect(last).toEqual({ deliveries: [expect.objectContaining({ attempt: 1 })], next_cursor: null });
		expect((await page("")).deliveries).toHaveLength(5);
		const bad = await call("GET", "/user/webhook/deliveries?cursor=abc", { headers });
		expect(bad.status).toBe(422);
		expect(await bad.text()).toContain("cursor must be the next_cursor of an earlier page");
	});
});
