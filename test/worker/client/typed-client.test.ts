/**
 * The typed client inside workerd, on the real Worker (SELF): typed calls, typed errors, and the
 * live feed's Workers path (fetch with `Upgrade: websocket` and `X-API-Key`, no ticket) fed by a
 * simulated bot over the real channel.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
	ConflictError,
	createClient,
	ForbiddenError,
	MeetbotApiError,
	type MeetingFrame,
	NotFoundError,
	RateLimitError,
	type SubscribedFrame,
	UnauthorizedError,
	ValidationError,
} from "../../../packages/client/src/index";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { liveMeeting, segment } from "../meetings/helpers";
import { userWithKey } from "../support";

const clientFor = (apiKey: string) =>
	createClient({ baseUrl: "https://gateway.test", apiKey, fetch: (input, init) => SELF.fetch(input, init), live: { backoffMs: 20 } });

describe("createClient against the Worker", () => {
	it("makes typed calls: plan a meeting, read it back, list, webhook settings", async () => {
		const { key } = await userWithKey();
		const client = clientFor(key);
		const code = meetCode();
		const planned = await client.meetings.plan({ meeting_url: `https://meet.google.com/${code}`, title: "Typed" });
		expect(planned.native_meeting_id).toBe(code);
		const again = await client.meetings.get(planned.id);
		expect(again).toEqual(planned);
		const list = await client.meetings.list({ limit: 5 });
		expect(list.meetings.map((m) => m.id)).toContain(planned.id);
		const hook = await client.user.webhook.put({ webhook_url: "https://hooks.example.com/x", webhook_secret: "s3cret-value-1234" });
		expect(hook.webhook_secret_set).toBe(true);
		expect(JSON.stringify(await client.user.webhook.get())).not.toContain("s3cret-value-1234");
		expect(await client.meetings.delete(planned.id)).toBeUndefined();
	});

	it("lists, mints and revokes the caller's own keys", async () => {
		const { key } = await userWithKey("bot,tx");
		const client = clientFor(key);
		const minted = await client.auth.keys.mint({ scopes: ["tx"], name: "typed", expires_in_days: 7 });
		expect(minted).toMatchObject({ scopes: ["tx"], name: "typed", current: false });
		expect((await client.auth.keys.list()).keys.map((k) => [k.id, k.current])).toEqual([
			[minted.id, false],
			[expect.any(Number), true],
		]);
		expect(await client.auth.keys.revoke(minted.id)).toBeUndefined();
		const refused = await clientFor(minted.token)
			.auth.me()
			.catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(UnauthorizedError);
		expect(await client.auth.keys.mint({ scopes: ["browser"] }).catch((e: unknown) => e)).toBeInstanceOf(ForbiddenError);
	});

	it("throws typed errors carrying status and detail, never the key", async () => {
		const { key } = await userWithKey();
		const client = clientFor(key);
		const missing = await client.meetings.get(999_999_999).catch((e: unknown) => e);
		expect(missing).toBeInstanceOf(NotFoundError);
		expect(missing).toMatchObject({ status: 404, kind: "not_found" });
		expect(typeof (missing as NotFoundError).detail).toBe("string");

		const invalid = await client.bots.send({ platform: "google_meet", native_meeting_id: "a/b?c" }).catch((e: unknown) => e);
		expect(invalid).toBeInstanceOf(ValidationError);
		expect((invalid as ValidationError).status).toBe(422);
		expect((invalid as ValidationError).fields.length).toBeGreaterThan(0);
		expect((invalid as ValidationError).fields[0]?.loc[0]).toBe("body");

		const wrongKey = clientFor(`${key}x`);
		const refused = await wrongKey.meetings.list().catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(UnauthorizedError);
		expect(String((refused as Error).message)).not.toContain(key);

		const txOnly = clientFor((await userWithKey("tx")).key);
		const scope = await txOnly.bots.status().catch((e: unknown) => e);
		expect(scope).toBeInstanceOf(ForbiddenError);
		expect(scope).toBeInstanceOf(MeetbotApiError);
		expect((scope as ForbiddenError).status).toBe(403);
	});
});

describe("typed errors for a conflict and a full bucket", () => {
	it("reads a transcript export as text", async () => {
		const { headers, key } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ speaker: "Ann", text: "Hi & bye.", start: 1, end: 2 }) });
		const client = clientFor(key);
		expect(await client.transcripts.export("google_meet", code, "vtt")).toBe(
			"WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<v Ann>Hi &amp; bye.\n",
		);
		expect((await client.transcripts.export("google_meet", code, "txt")).split("\n")[0]).toBe(`Meeting: Google Meet ${code}`);
	});

	it("throws ConflictError for a second bot on a link that has one", async () => {
		const { key } = await userWithKey();
		const client = clientFor(key);
		const code = meetCode();
		await client.bots.send({ platform: "google_meet", native_meeting_id: code });
		const again = await client.bots.send({ platform: "google_meet", native_meeting_id: code }).catch((e: unknown) => e);
		expect(again).toBeInstanceOf(ConflictError);
		expect(again).toMatchObject({ status: 409, kind: "conflict" });
	});

	it("throws RateLimitError with the Retry-After seconds when the account's bucket is empty", async () => {
		const { key } = await userWithKey();
		// The real Worker under a deployment whose bucket holds two requests and refills very slowly.
		const tight = { ...env, GATEWAY_RATE_LIMIT_RPS: "0.001", GATEWAY_RATE_LIMIT_BURST: "2" } as Env;
		const client = createClient({
			baseUrl: "https://gateway.test",
			apiKey: key,
			fetch: async (input, init) => {
				const ctx = createExecutionContext();
				const res = await worker.fetch(new Request(input, init) as Parameters<typeof worker.fetch>[0], tight, ctx);
				await waitOnExecutionContext(ctx);
				return res;
			},
		});
		await client.auth.me();
		await client.auth.me();
		const refused = await client.auth.me().catch((e: unknown) => e);
		expect(refused).toBeInstanceOf(RateLimitError);
		expect(refused).toMatchObject({ status: 429, kind: "rate_limited", detail: "Rate limit exceeded" });
		expect((refused as RateLimitError).retryAfter).toBeGreaterThanOrEqual(1);
	});
});

describe("client.agent.chat", () => {
	it("yields the turn's SSE frames as typed objects, in order, with their ids", async () => {
		const { key } = await userWithKey();
		const frames = [];
		for await (const frame of clientFor(key).agent.chat({ prompt: "What did Bob say?" })) frames.push(frame);
		expect(frames.map((f) => f.data.type)).toEqual(["error", "turn-complete"]);
		expect(frames.map((f) => Number(f.id))).toEqual([1, 2]);
		const error = frames[0]?.data;
		expect(error?.type === "error" && error.message).toContain("No model is configured");
	});
});

describe("client.live.subscribe in a Worker", () => {
	it("connects with the key in a header and delivers typed transcript and status frames", async () => {
		const { key, headers } = await userWithKey();
		const code = meetCode();
		const client = clientFor(key);
		const frames: MeetingFrame[] = [];
		const live = await liveMeeting(headers, code);
		const feed = client.live.subscribe([{ platform: "google_meet", native_id: code }], { onFrame: (f) => frames.push(f) });
		try {
			const subscribed = await feed.ready;
			expect(subscribed).toEqual({ type: "subscribed", meetings: [{ platform: "google_meet", native_id: code }] });
			await live.bot.send({ type: "segment", segment: segment({ text: "Typed frames." }) });
			const bundle = await eventually("transcript", () => frames.find((f) => f.type === "transcript"));
			expect(bundle.type === "transcript" && bundle.confirmed[0]?.text).toBe("Typed frames.");
			expect(bundle.meeting.native_id).toBe(code);
			await live.bot.status("completed", { completion_reason: "stopped" });
			const ended = await eventually("completed", () =>
				frames.find((f) => f.type === "meeting.status" && f.payload.status === "completed"),
			);
			expect(ended.type === "meeting.status" && ended.payload.data?.completion_reason).toBe("stopped");
			expect(feed.connections).toBe(1);
		} finally {
			feed.close();
		}
	});

	it("splits a long list of links into frames the feed accepts (100 links each)", async () => {
		const { key } = await userWithKey();
		const links = Array.from({ length: 150 }, () => ({ platform: "google_meet", native_id: meetCode() }));
		const answered: SubscribedFrame[] = [];
		const errors: string[] = [];
		const feed = clientFor(key).live.subscribe(links, { onSubscribed: (f) => answered.push(f), onError: (e) => errors.push(e.message) });
		try {
			await eventually("both answers", () => (answered.length === 2 ? true : undefined));
			expect(
				answered
					.flatMap((f) => [...f.meetings, ...(f.denied ?? [])])
					.map((l) => l.native_id)
					.sort(),
			).toEqual(links.map((l) => l.native_id).sort());
			expect(errors).toEqual([]);
		} finally {
			feed.close();
		}
	});

	it("stops with a fatal error when the key is refused, without retrying", async () => {
		const client = clientFor("vxa_bot_not_a_real_key_0000000000000000");
		const errors: { fatal: boolean; message: string }[] = [];
		const feed = client.live.subscribe([{ platform: "google_meet", native_id: meetCode() }], { onError: (e) => errors.push(e) });
		await expect(feed.ready).rejects.toMatchObject({ fatal: true });
		expect(errors.at(-1)?.message).toContain("Invalid API key");
		expect(feed.connections).toBe(1);
	});
});
