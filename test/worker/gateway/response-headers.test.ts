/**
 * Every answer of the API carries `X-Content-Type-Options: nosniff` (security review finding
 * 16): dashboard/_headers covers the static assets only, and the API shares their origin.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { liveMeeting } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";

const nosniff = (res: Response) => res.headers.get("x-content-type-options");

describe("X-Content-Type-Options on API answers", () => {
	it("is set on a JSON answer", async () => {
		const { headers } = await userWithKey();
		const res = await call("GET", "/auth/me", { headers });
		expect(res.status).toBe(200);
		expect(nosniff(res)).toBe("nosniff");
	});

	it("is set on errors: a refused key, an unknown route, a body that fails validation", async () => {
		const { headers } = await userWithKey();
		const refused = await call("GET", "/auth/me");
		expect(refused.status).toBe(401);
		const unknown = await call("GET", "/no/such/route", { headers });
		expect(unknown.status).toBe(404);
		const invalid = await call("PUT", "/user/models", { headers, json: { mode: "free" } });
		expect(invalid.status).toBe(422);
		for (const res of [refused, unknown, invalid]) expect(nosniff(res), String(res.status)).toBe("nosniff");
	});

	it("is set on the public transcript, which is text/plain on the dashboard's origin", async () => {
		const { headers } = await userWithKey();
		const { code } = await liveMeeting(headers);
		const share = await call("POST", `/transcripts/google_meet/${code}/share`, { headers });
		const { url } = await json<{ url: string }>(share);
		const res = await SELF.fetch(url);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
		expect(nosniff(res)).toBe("nosniff");
	});

	it("is set on an answer passed through from a Durable Object (the git export)", async () => {
		const { headers } = await userWithKey();
		const res = await call("GET", "/agent/api/workspace/repo.git/info/refs?service=git-upload-pack", { headers });
		expect(res.status).toBe(200);
		expect(nosniff(res)).toBe("nosniff");
	});
});
