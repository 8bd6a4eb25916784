/**
 * Every address an account chooses is judged by the outbound guard when it is saved: a 422 on
 * that field naming why, and nothing stored (README, security model; security review finding
 * 13 and issue 21). The tests' deployment allows private targets, so these run the Worker with
 * OUTBOUND_ALLOW_PRIVATE=false, as a production deployment does.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import type { Env } from "../../../src/env";
import { attemptDelivery } from "../../../src/webhooks/deliver";
import { userWithKey } from "../support";

const STRICT = { ...env, OUTBOUND_ALLOW_PRIVATE: "false" } as Env;

async function strictCall(method: string, path: string, headers: Record<string, string>, json?: unknown) {
	const ctx = createExecutionContext();
	const request = new Request(`https://gateway.test${path}`, {
		method,
		headers: { ...headers, ...(json === undefined ? {} : { "content-type": "application/json" }) },
		body: json === undefined ? undefined : JSON.stringify(json),
	});
	const res = await app.fetch(request, STRICT, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

/** Targets inside the deployment's network, in the spellings the review tried, and why each is refused. */
const INSIDE: [url: string, why: string][] = [
	["http://127.0.0.1:29010/hook", "loopback target 127.0.0.1 is not allowed"],
	["http://10.1.2.3/hook", "private target 10.1.2.3 is not allowed"],
	["http://169.254.169.254/latest/meta-data/", "cloud metadata endpoints are never allowed"],
	["http://[::ffff:127.0.0.1]/hook", "ipv4-mapped target [::ffff:7f00:1] is not allowed"],
	["http://0177.0.0.1/hook", "loopback target 127.0.0.1 is not allowed"],
	["http://0x7f000001/hook", "loopback target 127.0.0.1 is not allowed"],
	["http://127.0.0.1.nip.io/hook", "loopback target 127.0.0.1.nip.io is not allowed"],
	["http://vm:29010/hook", "private target vm is not allowed: a name without a dot is resolved inside the network"],
	["http://jenkins./job", "private target jenkins is not allowed: a name without a dot is resolved inside the network"],
];

/** One route that saves an address: how to send one, the field it names, and what is stored after. */
interface SavedAddress {
	name: string;
	field: string;
	save: (headers: Record<string, string>, url: string) => Promise<Response>;
	stored: (headers: Record<string, string>) => Promise<unknown>;
	message: (why: string) => string;
}

const readJson = async (res: Response) => {
	expect(res.status).toBe(200);
	return res.json();
};

const ROUTES: SavedAddress[] = [
	{
		name: "PUT /user/webhook",
		field: "webhook_url",
		save: (h, url) => strictCall("PUT", "/user/webhook", h, { webhook_url: url, webhook_secret: "hook-secret-1234" }),
		stored: async (h) => readJson(await strictCall("GET", "/user/webhook", h)),
		message: (why) => `webhook_url is not allowed: ${why}`,
	},
	{
		name: "PUT /user/models",
		field: "base_url",
		save: (h, url) => strictCall("PUT", "/user/models", h, { base_url: url, api_key: "sk-user-model-key" }),
		stored: async (h) => readJson(await strictCall("GET", "/user/models", h)),
		message: (why) => `base_url is not allowed: ${why}`,
	},
	{
		name: "PUT /user/transcription",
		field: "url",
		save: (h, url) => strictCall("PUT", "/user/transcription", h, { url, token: "stt-user-token" }),
		stored: async (h) => readJson(await strictCall("GET", "/user/transcription", h)),
		message: (why) => `url is not allowed: ${why}`,
	},
	{
		name: "POST /user/calendars",
		field: "ics_url",
		save: (h, url) => strictCall("POST", "/user/calendars", h, { name: "Work", ics_url: url }),
		stored: async (h) => readJson(await strictCall("GET", "/user/calendars", h)),
		message: (why) => `ics_url is not an allowed feed address: ${why}`,
	},
];

describe.each(ROUTES)("$name judges the address when it is saved", (route) => {
	it.each(INSIDE)("refuses %s with 422 naming why, and stores nothing", async (url, why) => {
		const { headers } = await userWithKey();
		const before = await route.stored(headers);
		const res = await route.save(headers, url);
		expect(res.status, await res.clone().text()).toBe(422);
		expect(await res.json()).toEqual({ detail: [{ loc: ["body", route.field], msg: route.message(why), type: "value_error" }] });
		expect(await route.stored(headers)).toEqual(before);
	});
});

describe("the workspace swap", () => {
	it("refuses a repository on a name without a dot before any clone (422 naming why)", async () => {
		const { headers } = await userWithKey();
		const res = await strictCall("POST", "/agent/api/workspace/swap", headers, { repo: "https://git/notes.git" });
		expect(res.status).toBe(422);
		expect(await res.json()).toEqual({
			detail: [
				{
					loc: ["body", "repo"],
					msg: "repo is not allowed: private target git is not allowed: a name without a dot is resolved inside the network",
					type: "value_error",
				},
			],
		});
	});
});

describe("an address stored before the policy changed", () => {
	it("is judged again at delivery: a webhook to a name without a dot is blocked, nothing leaves", async () => {
		const { user, headers } = await userWithKey();
		// Stored by a gateway that did not judge bare names yet: written into the row directly.
		const saved = await strictCall("PUT", "/user/webhook", headers, { webhook_url: "https://hooks.example.com/in" });
		expect(saved.status).toBe(200);
		await env.DB.prepare("UPDATE account_settings SET webhook_url = ? WHERE user_id = ?").bind("http://vm:29010/hook", user.id).run();
		const event = { event_id: crypto.randomUUID(), event_type: "meeting.completed" as const, meeting_id: null, body: "{}" };
		const report = await attemptDelivery(STRICT, user.id, event, { attempt: 1, willRetry: true });
		expect(report).toEqual({
			outcome: "blocked",
			retry: false,
			status_code: null,
			target_host: "vm",
			recorded: true,
			duration_ms: null,
			error: "the outbound guard refused the address",
		});
	});
});
