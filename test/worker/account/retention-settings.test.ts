/**
 * The account's retention window (docs/retention.md#retention, docs/api.md#account-and-settings):
 * whole days from 1 to 3650, or null to follow the deployment's RETENTION_DAYS; anything else is a
 * 422 with `{detail}` that changes nothing. It lives beside the other settings without touching them.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { call, expectDocumented, json, mintKey, userWithKey } from "../support";

const Retention = z.object({
	retention_days: z.number().int().nullable(),
	deployment_days: z.number().int(),
	effective_days: z.number().int(),
});

const read = async (headers: Record<string, string>) => expectDocumented(Retention, await call("GET", "/user/retention", { headers }));
const write = (headers: Record<string, string>, body: unknown) => call("PUT", "/user/retention", { headers, json: body });

describe("GET and PUT /user/retention", () => {
	it("follows the deployment until the account sets a window, and again after null", async () => {
		const { headers } = await userWithKey();
		expect(await read(headers)).toEqual({ retention_days: null, deployment_days: 0, effective_days: 0 });
		expect(await expectDocumented(Retention, await write(headers, { retention_days: 30 }))).toEqual({
			retention_days: 30,
			deployment_days: 0,
			effective_days: 30,
		});
		expect(await read(headers)).toEqual({ retention_days: 30, deployment_days: 0, effective_days: 30 });
		expect(await expectDocumented(Retention, await write(headers, { retention_days: null }))).toEqual({
			retention_days: null,
			deployment_days: 0,
			effective_days: 0,
		});
	});

	it("refuses anything but whole days from 1 to 3650 or null with 422 {detail}, changing nothing", async () => {
		const { headers, user } = await userWithKey();
		expect((await write(headers, { retention_days: 7 })).status).toBe(200);
		const row = () => env.DB.prepare("SELECT * FROM account_settings WHERE user_id = ?").bind(user.id).first();
		const stored = await row();
		for (const body of [
			{ retention_days: 0 },
			{ retention_days: -1 },
			{ retention_days: 3651 },
			{ retention_days: 1.5 },
			{ retention_days: "30" },
			{ retention_days: true },
			{},
		]) {
			const res = await write(headers, body);
			expect(res.status, JSON.stringify(body)).toBe(422);
			const answer = await json<{ detail: { loc: unknown[]; msg: string }[] }>(res);
			expect(answer.detail[0]?.loc, JSON.stringify(body)).toEqual(["body", "retention_days"]);
			expect(Object.keys(answer)).toEqual(["detail"]);
		}
		const tooLong = await json<{ detail: { msg: string }[] }>(await write(headers, { retention_days: 3651 }));
		expect(tooLong.detail[0]?.msg).toBe("retention_days must be from 1 to 3650 days, or null for the deployment's");
		expect(await row()).toEqual(stored);
		expect(await read(headers)).toMatchObject({ retention_days: 7 });
		expect((await write(headers, { retention_days: 3650 })).status).toBe(200);
		expect((await write(headers, { retention_days: 1 })).status).toBe(200);
	});

	it("keeps the other settings as they are, and is kept by their writes", async () => {
		const { headers } = await userWithKey();
		expect((await call("PUT", "/user/models", { headers, json: { model: "gpt-x" } })).status).toBe(200);
		expect((await write(headers, { retention_days: 14 })).status).toBe(200);
		expect(await json(await call("GET", "/user/models", { headers }))).toMatchObject({ model: "gpt-x" });
		expect((await call("PUT", "/user/models", { headers, json: { model: "" } })).status).toBe(200);
		expect(await read(headers)).toMatchObject({ retention_days: 14 });
	});

	it("is a settings route: a browser-only key may not read or write it", async () => {
		const { user } = await userWithKey();
		const browser = { "X-API-Key": await mintKey(user.id, "browser") };
		expect((await call("GET", "/user/retention", { headers: browser })).status).toBe(403);
		expect((await write(browser, { retention_days: 3 })).status).toBe(403);
	});
});
