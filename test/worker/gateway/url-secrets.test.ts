import { SELF } from "cloudflare:test";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveFeed } from "../../../durable-objects/live-feed";
import { errorText } from "../../../src/error-text";
import { mapError } from "../../../src/errors";
import { REDACTED, redactUrlSecrets, withoutUrlSecrets } from "../../../src/url-secrets";
import { openSocket } from "../meetings/bot-sim";
import { call, json, userWithKey } from "../support";

/**
 * `/ws?api_key=` is accepted (the reference's clients connect that way), but a key, ticket or
 * token in a URL never reaches a log, an error or the object the request is handed to
 * (docs/live-feed.md#connecting).
 */

const METHODS = ["log", "info", "warn", "error", "debug"] as const;
let logged: string[] = [];

beforeEach(() => {
	logged = [];
	for (const method of METHODS) {
		vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
			logged.push(args.map((a) => (a instanceof Error ? `${a.name} ${a.message}` : String(a))).join(" "));
		});
	}
});

afterEach(() => vi.restoreAllMocks());

/** Everything the requests produced that a person or a log could read. */
const expectNowhere = (secret: string, texts: string[]) => {
	for (const text of [...texts, ...logged]) expect(text).not.toContain(secret);
};

describe("a key in a /ws URL", () => {
	it("opens the feed, and neither its answers, its frames, the logs nor the feed's request carry the key", async () => {
		const { key } = await userWithKey();
		const seenByFeed: string[] = [];
		const feedFetch = LiveFeed.prototype.fetch;
		vi.spyOn(LiveFeed.prototype, "fetch").mockImplementation(function (this: LiveFeed, request: Request) {
			seenByFeed.push(request.url, ...[...request.headers].map(([name, value]) => `${name}: ${value}`));
			return feedFetch.call(this, request);
		});
		const texts: string[] = [];

		const socket = await openSocket(`/ws?api_key=${key}&lang=en`, {});
		socket.socket.send("{not json");
		socket.send({ action: "no-such-action", api_key: "x" });
		socket.send({ action: "subscribe", meetings: "not a list" });
		await socket.waitFor("three errors", () => socket.messages.filter((m) => m.type === "error").length >= 3);
		await socket.pingPong();
		texts.push(JSON.stringify(socket.messages));
		socket.close();
		expect(seenByFeed[0]).toBe("https://gateway.test/ws?lang=en");
		texts.push(...seenByFeed);

		// Not an upgrade: 426, with nothing of the URL in the answer.
		const plain = await call("GET", `/ws?api_key=${key}`);
		expect(plain.status).toBe(426);
		texts.push(await plain.text(), JSON.stringify([...plain.headers]));

		// A wrong key in the URL: refused in-band, the wrong key not echoed either.
		const wrong = `vxa_bot_${"W".repeat(43)}`;
		const refused = await openSocket(`/ws?api_key=${wrong}`, {});
		await refused.waitFor("the refusal", (m) => m.type === "error");
		texts.push(JSON.stringify(refused.messages));
		expectNowhere(wrong, texts);
		expectNowhere(key, texts);
	});

	it("a ticket in the URL is not handed on either", async () => {
		const { key } = await userWithKey();
		const { ticket } = await json<{ ticket: string }>(await call("POST", "/auth/ticket", { headers: { "X-API-Key": key } }));
		const seenByFeed: string[] = [];
		const feedFetch = LiveFeed.prototype.fetch;
		vi.spyOn(LiveFeed.prototype, "fetch").mockImplementation(function (this: LiveFeed, request: Request) {
			seenByFeed.push(request.url);
			return feedFetch.call(this, request);
		});
		const socket = await openSocket(`/ws?ticket=${encodeURIComponent(ticket)}`, {});
		await socket.pingPong();
		socket.close();
		expect(seenByFeed).toEqual(["https://gateway.test/ws"]);
		expectNowhere(ticket, [JSON.stringify(socket.messages)]);
	});
});

describe("a key in a REST URL", () => {
	it("is not echoed by validation errors, unknown routes or refusals", async () => {
		const { key, headers } = await userWithKey();
		const texts: string[] = [];
		for (const [path, status, withKey] of [
			[`/meetings?limit=ten&api_key=${key}`, 422, true],
			[`/meetings?status=nonsense&token=${key}`, 422, true],
			[`/no/such/route?api_key=${key}`, 404, true],
			[`/meetings?api_key=${key}`, 401, false],
			[`/transcripts/search?q=&ticket=${key}`, 422, true],
		] as const) {
			const res = await SELF.fetch(`https://gateway.test${path}`, { headers: withKey ? headers : {} });
			expect(res.status, path).toBe(status);
			texts.push(await res.text(), JSON.stringify([...res.headers]));
		}
		expectNowhere(key, texts);
	});
});

describe("the error mapper and error texts", () => {
	it("logs an unhandled error that quotes its URL with the key redacted, and answers a bare 500", async () => {
		const key = `vxa_bot_${"K".repeat(43)}`;
		const app = new Hono();
		app.onError(mapError);
		app.get("/ws", (c) => {
			throw new TypeError(`could not hand on ${c.req.url}`);
		});
		const res = await app.request(`https://gateway.test/ws?api_key=${key}&ticket=wst_1_abc`);
		expect(res.status).toBe(500);
		expect(await res.json()).toEqual({ detail: "Internal server error" });
		expect(logged.join("\n")).toContain(`?api_key=${REDACTED}&ticket=${REDACTED}`);
		expectNowhere(key, []);
		expectNowhere("wst_1_abc", []);
	});

	it.each([
		["https://g.test/ws?api_key=vxa_tx_SECRET1", `https://g.test/ws?api_key=${REDACTED}`],
		["GET /ws?lang=en&API_KEY=SECRET1#frag 101", `GET /ws?lang=en&API_KEY=${REDACTED}#frag 101`],
		["feed https://cal.test/a.ics?token=SECRET1&x=1 failed", `feed https://cal.test/a.ics?token=${REDACTED}&x=1 failed`],
		["next=https%3A%2F%2Fg.test%2Fws%3Fapi_key%3DSECRET1", `next=https%3A%2F%2Fg.test%2Fws%3Fapi_key%3D${REDACTED}`],
		['{"url":"/ws?ticket=SECRET1"}', `{"url":"/ws?ticket=${REDACTED}"}`],
		["/oauth?access_token=SECRET1;x", `/oauth?access_token=${REDACTED};x`],
	])("redacts %s", (text, redacted) => {
		expect(redactUrlSecrets(text)).toBe(redacted);
		expect(errorText(new Error(text))).toBe(redacted);
	});

	it("leaves other query parameters and URLs as they are", () => {
		const text = "GET /meetings?limit=5&tokens=3&my_api_key_name=x 200";
		expect(redactUrlSecrets(text)).toBe(text);
		expect(withoutUrlSecrets("https://g.test/ws?api_key=a&Ticket=b&token=c&lang=en").href).toBe("https://g.test/ws?lang=en");
	});
});
