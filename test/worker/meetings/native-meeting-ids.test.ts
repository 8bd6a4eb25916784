import { describe, expect, it } from "vitest";
import { call, json, userWithKey } from "../support";
import { spawnRequestFor } from "./bot-sim";

interface FieldError {
	loc: (string | number)[];
	msg: string;
}

/** Ids the reference spawns that a per-platform format rule used to refuse. */
const ODD_BUT_REAL: [platform: string, id: string, passcode: string | null, url: string][] = [
	["google_meet", "aaa-prb12345-bot", null, "https://meet.google.com/aaa-prb12345-bot"],
	["zoom", "123456789012", "Zp4ss", "https://zoom.us/j/123456789012?pwd=Zp4ss"],
	["teams", "1234567", null, "https://teams.live.com/meet/1234567"],
	["teams", "93988508804261234", "WB7TSXPa", "https://teams.live.com/meet/93988508804261234?p=WB7TSXPa"],
];

const BROKEN: [id: string, named: string][] = [
	["397421056486982?p=X8hcQVTnGNpGelJLSv", "passcode"],
	["abc&def", "passcode"],
	["abc=def", "passcode"],
	["abc/def", "meeting_url"],
	["abc#def", "meeting_url"],
	["abc def", "spaces"],
	["abc\u0001def", "control characters"],
	["a".repeat(256), "the maximum is 255"],
];

async function meetingsOf(headers: Record<string, string>): Promise<unknown[]> {
	return (await json<{ meetings: unknown[] }>(await call("GET", "/meetings", { headers }))).meetings;
}

describe("native meeting ids sent without a link", () => {
	it.each(ODD_BUT_REAL)("sends a bot to %s %s and reaches it again by the same id", async (platform, id, passcode, url) => {
		const { headers } = await userWithKey();
		const res = await call("POST", "/bots", { headers, json: { platform, native_meeting_id: id, ...(passcode ? { passcode } : {}) } });
		expect(res.status, await res.clone().text()).toBe(201);
		const meeting = await json<{ id: number; native_meeting_id: string; constructed_meeting_url: string }>(res);
		expect(meeting.native_meeting_id).toBe(id);
		expect(meeting.constructed_meeting_url).toBe(url);
		expect((await spawnRequestFor(meeting.id)).meeting_url).toBe(url);

		// The id is the address of the meeting on every route that names it.
		const path = `${platform}/${encodeURIComponent(id)}`;
		const patched = await call("PATCH", `/meetings/${path}`, { headers, json: { notes: "odd id" } });
		expect(patched.status).toBe(200);
		expect((await call("DELETE", `/bots/${path}`, { headers })).status).toBe(204);
	});

	it.each(BROKEN)("refuses %j with 422 naming the fix, and creates nothing", async (id, named) => {
		const { headers } = await userWithKey();
		const res = await call("POST", "/bots", { headers, json: { platform: "teams", native_meeting_id: id } });
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: FieldError[] }>(res);
		expect(detail).toHaveLength(1);
		expect(detail[0]!.loc).toEqual(["body", "native_meeting_id"]);
		expect(detail[0]!.msg).toContain(named);
		expect(await meetingsOf(headers)).toEqual([]);
	});

	it("refuses the same ids in a route's path with 422 rather than looking them up", async () => {
		const { headers } = await userWithKey();
		for (const [method, path] of [
			["GET", "/transcripts/teams/abc%3Fp%3Dx"],
			["DELETE", "/bots/teams/abc%26def"],
			["PATCH", "/meetings/teams/abc%20def"],
		] as const) {
			const res = await call(method, path, { headers, ...(method === "PATCH" ? { json: { notes: "x" } } : {}) });
			expect(res.status, path).toBe(422);
			const { detail } = await json<{ detail: FieldError[] }>(res);
			expect(detail[0]!.loc, path).toEqual(["param", "native_meeting_id"]);
		}
	});
});
