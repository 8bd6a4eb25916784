import { describe, expect, it } from "vitest";
import { ADMIN, call, json, userWithKey } from "../support";

/**
 * A number field given something else (a path id, a page size) is a 422 that names the field
 * and says it must be a number, never zod's "expected number, received NaN" (docs/api.md#errors).
 */

type FieldErrors = { detail: { loc: (string | number)[]; msg: string; type: string }[] };

describe("number fields given something else", () => {
	it("name the field and say it must be a number, on path ids and query numbers alike", async () => {
		const { headers } = await userWithKey();
		const cases: [string, Record<string, string>, (string | number)[], string][] = [
			["/recordings/abc", headers, ["param", "recording_id"], "recording_id must be a number"],
			["/recordings?limit=ten", headers, ["query", "limit"], "limit must be a number"],
			["/user/webhook/deliveries?limit=all", headers, ["query", "limit"], "limit must be a number"],
			["/admin/users/someone", ADMIN, ["param", "user_id"], "user_id must be a number"],
		];
		for (const [path, hdrs, loc, msg] of cases) {
			const res = await call("GET", path, { headers: hdrs });
			expect(res.status, path).toBe(422);
			const [error] = (await json<FieldErrors>(res)).detail;
			expect(error, path).toEqual({ loc, msg, type: "invalid_type" });
		}
	});

	it("keep a route's own words where it has them (a meeting id)", async () => {
		const { headers } = await userWithKey();
		const res = await call("GET", "/meetings/abc-defg-hij", { headers });
		expect(res.status).toBe(422);
		expect((await json<FieldErrors>(res)).detail[0]?.msg).toMatch(/^meeting_id must be a meeting's number/);
	});
});
