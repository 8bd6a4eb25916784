import { describe, expect, it } from "vitest";
import { type HeaderBag, signWebhook, type VerifyFailure, verifyWebhook } from "../../../src/webhooks/signature";

const SECRET = "whsec_test_secret";
const BODY = '{"event_id":"evt_1","note":"café"}';
const TS = 1_771_401_720;
const AT_TS = new Date(TS * 1000);
const WINDOW = { toleranceSeconds: 300, now: AT_TS };

describe("signWebhook", () => {
	it("signs '<timestamp>.<raw body>' with HMAC-SHA256 as sha256=<hex>", async () => {
		// Reference value computed independently (Python hmac) over the UTF-8 bytes.
		expect(await signWebhook(SECRET, BODY, TS)).toEqual({
			"X-Webhook-Signature": "sha256=11beae431374a414e5f6e70e994d0eefed200e3f96e55fa714db1a796b3bc199",
			"X-Webhook-Timestamp": "1771401720",
		});
	});

	it("sends whole seconds", async () => {
		expect((await signWebhook(SECRET, BODY, TS + 0.9))["X-Webhook-Timestamp"]).toBe("1771401720");
	});

	it("refuses to sign with an empty secret", async () => {
		await expect(signWebhook("", BODY, TS)).rejects.toThrow();
	});
});

describe("verifyWebhook", () => {
	it("accepts a delivery signed with the shared secret", async () => {
		const headers = new Headers(await signWebhook(SECRET, BODY, TS));
		expect(await verifyWebhook(SECRET, headers, BODY, WINDOW)).toEqual({ ok: true, timestamp: TS });
	});

	it("accepts Node-style lowercase header objects and raw byte bodies", async () => {
		const signed = await signWebhook(SECRET, BODY, TS);
		const nodeHeaders = { "x-webhook-signature": signed["X-Webhook-Signature"], "x-webhook-timestamp": [signed["X-Webhook-Timestamp"]] };
		const bytes = Uint8Array.from(new TextEncoder().encode(BODY));
		expect(await verifyWebhook(SECRET, nodeHeaders, bytes, WINDOW)).toMatchObject({ ok: true });
		expect(await verifyWebhook(SECRET, nodeHeaders, bytes.buffer, WINDOW)).toMatchObject({ ok: true });
	});

	it("accepts timestamps exactly at the edge of the window", async () => {
		const headers = await signWebhook(SECRET, BODY, TS);
		expect(await verifyWebhook(SECRET, headers, BODY, { toleranceSeconds: 300, now: new Date((TS + 300) * 1000) })).toMatchObject({
			ok: true,
		});
		expect(await verifyWebhook(SECRET, headers, BODY, { toleranceSeconds: 300, now: new Date((TS - 300) * 1000) })).toMatchObject({
			ok: true,
		});
	});

	it("uses the system clock when no time is given", async () => {
		const now = Math.floor(Date.now() / 1000);
		expect(await verifyWebhook(SECRET, await signWebhook(SECRET, BODY, now), BODY, { toleranceSeconds: 60 })).toMatchObject({ ok: true });
		expect(await verifyWebhook(SECRET, await signWebhook(SECRET, BODY, TS), BODY, { toleranceSeconds: 60 })).toMatchObject({ ok: false });
	});

	const good = async () => ({ ...(await signWebhook(SECRET, BODY, TS)) }) as Record<string, string>;
	const REJECTIONS: [string, (h: Record<string, string>) => HeaderBag, string, string, Date, VerifyFailure][] = [
		["a changed body", (h) => h, `${BODY} `, SECRET, AT_TS, "bad_signature"],
		["another secret", (h) => h, BODY, "whsec_other", AT_TS, "bad_signature"],
		["an empty secret", (h) => h, BODY, "", AT_TS, "bad_signature"],
		["a changed timestamp", (h) => ({ ...h, "X-Webhook-Timestamp": String(TS + 1) }), BODY, SECRET, AT_TS, "bad_signature"],
		["a stale timestamp", (h) => h, BODY, SECRET, new Date((TS + 301) * 1000), "stale_timestamp"],
		["a future timestamp", (h) => h, BODY, SECRET, new Date((TS - 301) * 1000), "future_timestamp"],
		["no signature", ({ "X-Webhook-Signature": _s, ...h }) => h, BODY, SECRET, AT_TS, "missing_signature"],
		["no timestamp", ({ "X-Webhook-Timestamp": _t, ...h }) => h, BODY, SECRET, AT_TS, "missing_timestamp"],
		[
			"a bare hex signature",
			(h) => ({ ...h, "X-Webhook-Signature": h["X-Webhook-Signature"]!.slice(7) }),
			BODY,
			SECRET,
			AT_TS,
			"malformed_signature",
		],
		[
			"a sha1 prefix",
			(h) => ({ ...h, "X-Webhook-Signature": `sha1=${h["X-Webhook-Signature"]!.slice(7)}` }),
			BODY,
			SECRET,
			AT_TS,
			"malformed_signature",
		],
		[
			"a short signature",
			(h) => ({ ...h, "X-Webhook-Signature": h["X-Webhook-Signature"]!.slice(0, -2) }),
			BODY,
			SECRET,
			AT_TS,
			"malformed_signature",
		],
		[
			"a timestamp in milliseconds text",
			(h) => ({ ...h, "X-Webhook-Timestamp": "1771401720.5" }),
			BODY,
			SECRET,
			AT_TS,
			"malformed_timestamp",
		],
		["a negative timestamp", (h) => ({ ...h, "X-Webhook-Timestamp": "-1" }), BODY, SECRET, AT_TS, "malformed_timestamp"],
		["an ISO timestamp", (h) => ({ ...h, "X-Webhook-Timestamp": AT_TS.toISOString() }), BODY, SECRET, AT_TS, "malformed_timestamp"],
	];

	it.each(REJECTIONS)("rejects %s", async (_name, edit, body, secret, now, reason) => {
		const headers = edit(await good());
		expect(await verifyWebhook(secret, headers, body, { toleranceSeconds: 300, now })).toEqual({ ok: false, reason });
	});

	it("rejects a header repeated with two values", async () => {
		const h = await good();
		const headers = {
			"x-webhook-signature": [h["X-Webhook-Signature"]!, h["X-Webhook-Signature"]!],
			"x-webhook-timestamp": h["X-Webhook-Timestamp"],
		};
		expect(await verifyWebhook(SECRET, headers, BODY, WINDOW)).toEqual({ ok: false, reason: "malformed_signature" });
	});
});
