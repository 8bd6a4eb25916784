import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";

/**
 * `GET /meetings?exclude_planned=true` as the reference answers it (core/meetings/services/meeting-api/
 * src/meeting_api/collector/app.py `get_meetings`, `_NON_PLANNED_STATUSES`): plans (`idle`,
 * `scheduled`) are left out before `limit` and `offset` cut the page, and `status` wins over it.
 */

/** One meeting per status, oldest first, written straight to D1. */
async function meetingsIn(userId: number, statuses: string[]): Promise<void> {
	const now = new Date().toISOString();
	const insert = env.DB.prepare(
		"INSERT INTO meetings (user_id, platform, status, data, created_at, updated_at) VALUES (?, 'unknown', ?, '{}', ?, ?)",
	);
	await env.DB.batch(statuses.map((status) => insert.bind(userId, status, now, now)));
}

const listed = async (headers: Record<string, string>, query: string) => {
	const res = await call("GET", `/meetings${query}`, { headers });
	expect(res.status, query).toBe(200);
	return (await json<{ meetings: { id: number; status: string }[] }>(res)).meetings.map((m) => m.status);
};

describe("GET /meetings?exclude_planned", () => {
	it("leaves plans out before the page is cut, and an explicit status wins", async () => {
		const { user, headers } = await userWithKey();
		// Newest first in the answer: two plans on top of a history of three.
		await meetingsIn(user.id, ["completed", "failed", "active", "scheduled", "idle"]);
		expect(await listed(headers, "")).toEqual(["idle", "scheduled", "active", "failed", "completed"]);
		expect(await listed(headers, "?exclude_planned=true")).toEqual(["active", "failed", "completed"]);
		// The page is cut after the filter: plans take no places in it.
		expect(await listed(headers, "?exclude_planned=true&limit=1")).toEqual(["active"]);
		expect(await listed(headers, "?exclude_planned=true&limit=1&offset=1")).toEqual(["failed"]);
		expect(await listed(headers, "?exclude_planned=false")).toHaveLength(5);
		expect(await listed(headers, "?exclude_planned=true&status=idle")).toEqual(["idle"]);
	});

	it("refuses a value that is no boolean with a field error", async () => {
		const { headers } = await userWithKey();
		const res = await call("GET", "/meetings?exclude_planned=maybe", { headers });
		expect(res.status).toBe(422);
		expect(JSON.stringify(await res.json())).toContain("exclude_planned");
	});
});
