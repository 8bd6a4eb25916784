/**
 * Contract test for scripts/local-queue.mjs, the stand-in for Cloudflare Queues' HTTP pull API
 * that `npm start` and the tests use (wrangler dev has no pull consumers). Every expectation is
 * taken from developers.cloudflare.com/queues/configuration/pull-consumers/ (source:
 * cloudflare/cloudflare-docs, src/content/docs/queues/configuration/pull-consumers.mdx): the
 * pull response sample, the five message fields, content types, acks and retries, the
 * visibility timeout, max_retries, the batch_size cap and Bearer tokens. It runs over HTTP,
 * as a bot host and the Worker reach the stand-in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalQueue } from "../../scripts/local-queue.mjs";

const TOKEN = "queues-contract-token";
let queue: Awaited<ReturnType<typeof startLocalQueue>>;
/** The same stand-in on a clock the tests move on, for delays and visibility timeouts without waiting them out. */
let timed: Awaited<ReturnType<typeof startLocalQueue>>;
let skewMs = 0;
const advanceClock = (ms: number) => {
	skewMs += ms;
};
let counter = 0;
/** Each test its own queue, as parallel tests keep apart by queue id. */
const freshQueue = () => queue.url(`contract-${++counter}`);
const freshTimedQueue = () => timed.url(`contract-${++counter}`);

interface Envelope<T> {
	success: boolean;
	errors: { code: number; message: string }[];
	messages: unknown[];
	result: T;
}
interface PulledMessage {
	body: string;
	id: string;
	timestamp_ms: number;
	attempts: number;
	metadata: Record<string, string>;
	lease_id: string;
}

async function call<T>(url: string, body: unknown, token: string | null = TOKEN): Promise<{ status: number; json: Envelope<T> }> {
	const res = await fetch(url, {
		method: "POST",
		headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
		body: JSON.stringify(body),
	});
	return { status: res.status, json: (await res.json()) as Envelope<T> };
}
const publish = (base: string, body: unknown) => call<unknown>(`${base}/messages`, body);
const pull = async (base: string, body: unknown = {}) => {
	const { status, json } = await call<{ messages: PulledMessage[] }>(`${base}/messages/pull`, body);
	expect(status).toBe(200);
	return json.result.messages;
};
const ack = (base: string, body: unknown) =>
	call<{ ackCount: number; retryCount: number; warnings: unknown[] }>(`${base}/messages/ack`, body);
/** The i-th message of a pull, which the test expects to be there. */
const nth = (messages: PulledMessage[], i: number): PulledMessage => {
	const message = messages[i];
	if (!message) throw new Error(`expected a message at ${i}, got ${messages.length}`);
	return message;
};
/** A pull that must deliver exactly one message. */
const pullOne = async (base: string, body: unknown = {}) => {
	const messages = await pull(base, body);
	expect(messages).toHaveLength(1);
	return nth(messages, 0);
};
const decodeJson = (body: string) => JSON.parse(Buffer.from(body, "base64").toString("utf8"));

beforeAll(async () => {
	queue = await startLocalQueue({ token: TOKEN });
	timed = await startLocalQueue({ token: TOKEN, now: () => Date.now() + skewMs });
});
afterAll(async () => {
	await queue?.close();
	await timed?.close();
});

describe("the local queue speaks Cloudflare Queues' pull API", () => {
	it("answers a pull in the documented envelope, each message with the sample's fields", async () => {
		const base = freshQueue();
		const published = Date.now();
		expect((await publish(base, { body: { meeting_id: 7, attempt: 1 }, content_type: "json" })).status).toBe(200);
		const { status, json } = await call<{ messages: PulledMessage[] }>(`${base}/messages/pull`, {});
		expect(status).toBe(200);
		expect(json).toMatchObject({ success: true, errors: [], messages: [] });
		expect(json.result.messages).toHaveLength(1);
		const message = nth(json.result.messages, 0);
		// The docs' sample: body, id, timestamp_ms, attempts, metadata, lease_id; nothing else.
		expect(Object.keys(message).sort()).toEqual(["attempts", "body", "id", "lease_id", "metadata", "timestamp_ms"]);
		expect(message.id).toMatch(/^[0-9a-f]{32}$/);
		expect(message.timestamp_ms).toBeGreaterThanOrEqual(published - 5);
		expect(message.timestamp_ms).toBeLessThanOrEqual(Date.now());
		expect(message.attempts).toBe(1);
		expect(typeof message.lease_id).toBe("string");
		expect(message.metadata).toMatchObject({ "CF-Content-Type": "json" });
		expect(typeof message.metadata["CF-sourceMessageSource"]).toBe("string");
	});

	it("base64-encodes a json body and sends a text body as plain UTF-8", async () => {
		const base = freshQueue();
		const ticket = { meeting_id: 42, attempt: 2, not_after: "2026-11-23T20:00:00.000Z", note: "naïve ✓" };
		await publish(base, { body: ticket, content_type: "json" });
		await publish(base, { body: "hello wörld", content_type: "text" });
		// The default content type is json.
		await publish(base, { body: { default: true } });
		const messages = await pull(base, { batch_size: 10 });
		expect(messages).toHaveLength(3);
		const [json, text, byDefault] = [nth(messages, 0), nth(messages, 1), nth(messages, 2)];
		expect(json.body).toMatch(/^[A-Za-z0-9+/]+=*$/);
		expect(decodeJson(json.body)).toEqual(ticket);
		expect(text.body).toBe("hello wörld");
		expect(text.metadata["CF-Content-Type"]).toBe("text");
		expect(decodeJson(byDefault.body)).toEqual({ default: true });
		expect(byDefault.metadata["CF-Content-Type"]).toBe("json");
	});

	it("takes a batch publish and delivers at most batch_size per pull, 5 by default and never more than 100", async () => {
		const base = freshQueue();
		const bodies = Array.from({ length: 130 }, (_, i) => ({ body: { n: i } }));
		expect((await call(`${base}/messages/batch`, { messages: bodies })).status).toBe(200);
		expect(await pull(base, {})).toHaveLength(5);
		expect(await pull(base, { batch_size: 2 })).toHaveLength(2);
		const capped = await pull(base, { batch_size: 500 });
		expect(capped).toHaveLength(100);
		// Every message is delivered to one consumer only while its lease holds.
		const rest = await pull(base, { batch_size: 100 });
		expect(rest).toHaveLength(130 - 5 - 2 - 100);
		const seen = new Set([...capped, ...rest].map((m) => decodeJson(m.body).n));
		expect(seen.size).toBe(capped.length + rest.length);
		expect(await pull(base, { batch_size: 100 })).toEqual([]);
	});

	it("acks and retries by lease id, counting each, and a retried message comes back at once with one more attempt", async () => {
		const base = freshQueue();
		for (const n of [1, 2, 3]) await publish(base, { body: { n } });
		const pulled = await pull(base, { batch_size: 3, visibility_timeout_ms: 60_000 });
		const [a, b, c] = [nth(pulled, 0), nth(pulled, 1), nth(pulled, 2)];
		const { status, json } = await ack(base, {
			acks: [{ lease_id: a.lease_id }, { lease_id: b.lease_id }],
			retries: [{ lease_id: c.lease_id }],
		});
		expect(status).toBe(200);
		expect(json).toMatchObject({ success: true, errors: [] });
		expect(json.result).toMatchObject({ ackCount: 2, retryCount: 1 });
		// Retry puts it back at once, not after the (long) visibility timeout.
		const again = await pullOne(base, { batch_size: 3 });
		expect(decodeJson(again.body)).toEqual({ n: 3 });
		expect(again.id).toBe(c.id);
		expect(again.attempts).toBe(2);
		expect(again.lease_id).not.toBe(c.lease_id);
		// Acked messages never come back; `retries: []` may be left empty.
		expect((await ack(base, { acks: [{ lease_id: again.lease_id }], retries: [] })).json.result).toMatchObject({
			ackCount: 1,
			retryCount: 0,
		});
		expect(await pull(base, { batch_size: 3 })).toEqual([]);
	});

	it("holds a retried message back for its delay_seconds", async () => {
		const base = freshTimedQueue();
		await publish(base, { body: { n: 1 } });
		const first = await pullOne(base);
		await ack(base, { acks: [], retries: [{ lease_id: first.lease_id, delay_seconds: 1 }] });
		expect(await pull(base)).toEqual([]);
		advanceClock(900);
		expect(await pull(base)).toEqual([]);
		advanceClock(200);
		const back = await pullOne(base);
		expect(back.id).toBe(first.id);
		expect(back.attempts).toBe(2);
	});

	it("redelivers a message not acked within its visibility timeout, to any consumer, with attempts counted", async () => {
		const base = freshTimedQueue();
		await publish(base, { body: { n: 1 } });
		// The docs' own examples name the field `visibility_timeout` (milliseconds).
		const first = await pullOne(base, { visibility_timeout: 300 });
		expect(first.attempts).toBe(1);
		expect(await pull(base, { visibility_timeout_ms: 300 })).toEqual([]);
		advanceClock(400);
		const second = await pullOne(base, { visibility_timeout_ms: 300 });
		expect(second.id).toBe(first.id);
		expect(second.timestamp_ms).toBe(first.timestamp_ms);
		expect(second.attempts).toBe(2);
		expect(second.lease_id).not.toBe(first.lease_id);
		// Permissive: the first consumer's late ack still counts, and the message is gone.
		expect((await ack(base, { acks: [{ lease_id: first.lease_id }] })).json.result.ackCount).toBe(1);
		advanceClock(400);
		expect(await pull(base)).toEqual([]);
	});

	it("drops a message for good once its attempts reach max_retries (3 by default)", async () => {
		const base = freshQueue();
		await publish(base, { body: { n: 1 } });
		const attempts: number[] = [];
		for (let i = 0; i < 5; i++) {
			const [m] = await pull(base);
			if (!m) break;
			attempts.push(m.attempts);
			await ack(base, { retries: [{ lease_id: m.lease_id }] });
		}
		expect(attempts).toEqual([1, 2, 3]);
		expect(await pull(base)).toEqual([]);
	});

	it("refuses a missing or wrong Bearer token with 401 and the API's error envelope, changing nothing", async () => {
		const base = freshQueue();
		for (const token of [null, "wrong-token"]) {
			const refused = await call(`${base}/messages`, { body: { n: 1 } }, token);
			expect(refused.status).toBe(401);
			expect(refused.json).toMatchObject({ success: false, result: null });
			expect(refused.json.errors[0]).toMatchObject({ code: 10000 });
			expect((await call(`${base}/messages/pull`, {}, token)).status).toBe(401);
		}
		expect(await pull(base)).toEqual([]);
	});

	it("keeps queues apart by id", async () => {
		const [one, two] = [freshQueue(), freshQueue()];
		await publish(one, { body: { queue: 1 } });
		expect(await pull(two)).toEqual([]);
		expect((await pull(one)).map((m) => decodeJson(m.body))).toEqual([{ queue: 1 }]);
	});

	it("refuses a body that is not JSON, and a message without a body, with 400", async () => {
		const base = freshQueue();
		const notJson = await fetch(`${base}/messages`, {
			method: "POST",
			headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
			body: "{",
		});
		expect(notJson.status).toBe(400);
		expect(((await notJson.json()) as Envelope<null>).success).toBe(false);
		expect((await publish(base, { content_type: "json" })).status).toBe(400);
		expect(await pull(base)).toEqual([]);
	});
});
