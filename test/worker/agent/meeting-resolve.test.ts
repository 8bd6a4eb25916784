/**
 * GET /agent/meeting/resolve: a meeting as a person names it (its number, its link, its own code)
 * to the caller's meeting record, and clear words (never zod's "expected number, received NaN")
 * for anything else, here and on GET /meetings/{meeting_id}.
 */
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { call, json, userWithKey } from "../support";

interface Resolved {
	id: number;
	platform: string;
	native_meeting_id: string | null;
}

const resolve = (headers: Record<string, string>, ref: string, prefix = "/agent/api") =>
	call("GET", `${prefix}/meeting/resolve?meeting=${encodeURIComponent(ref)}`, { headers });

async function resolved(headers: Record<string, string>, ref: string): Promise<Resolved> {
	const res = await resolve(headers, ref);
	expect(res.status, `${ref}: ${await res.clone().text()}`).toBe(200);
	return json<Resolved>(res);
}

async function plan(headers: Record<string, string>, meetingUrl: string): Promise<Resolved> {
	const res = await call("POST", "/meetings", { headers, json: { meeting_url: meetingUrl } });
	expect(res.status).toBe(201);
	return json<Resolved>(res);
}

/** A Zoom meeting number of 11 digits nobody else's test uses. */
const zoomNumber = () => `8${String(crypto.getRandomValues(new Uint32Array(1))[0]).padStart(10, "0")}`;

describe("GET /agent/api/meeting/resolve", () => {
	it("finds the caller's meeting by its number, its Meet, Zoom or Teams link, or its code, whatever the case", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const meet = await plan(headers, `https://meet.google.com/${code}`);
		const zoomId = zoomNumber();
		const zoom = await plan(headers, `https://zoom.us/j/${zoomId}?pwd=abc123`);
		const teamsId = `9${zoomNumber()}12`;
		const teams = await plan(headers, `https://teams.live.com/meet/${teamsId}?p=pass123`);

		for (const ref of [
			String(meet.id),
			` ${meet.id} `,
			`https://meet.google.com/${code}`,
			`meet.google.com/${code}?authuser=0`,
			code,
			code.toUpperCase(),
		])
			expect((await resolved(headers, ref)).id).toBe(meet.id);
		for (const ref of [`https://us05web.zoom.us/j/${zoomId}?pwd=abc123`, zoomId]) expect((await resolved(headers, ref)).id).toBe(zoom.id);
		for (const ref of [`https://teams.live.com/meet/${teamsId}?p=pass123`, teamsId])
			expect((await resolved(headers, ref)).id).toBe(teams.id);
		// The answer is the meeting record, as GET /meetings/{id} gives it.
		expect(await resolved(headers, code)).toEqual(await json(await call("GET", `/meetings/${meet.id}`, { headers })));
		// The reference's short path answers the same.
		expect((await json<Resolved>(await resolve(headers, code, "/agent"))).id).toBe(meet.id);
	});

	it("answers 404 for a meeting the caller cannot read, and never says whether someone else's exists", async () => {
		const owner = await userWithKey();
		const stranger = await userWithKey();
		const code = meetCode();
		const meet = await plan(owner.headers, `https://meet.google.com/${code}`);
		for (const ref of [String(meet.id), code, `https://meet.google.com/${code}`]) {
			const res = await resolve(stranger.headers, ref);
			expect(res.status).toBe(404);
			const { detail } = await json<{ detail: string }>(res);
			expect(detail).toMatch(/^No meeting of yours matches /);
		}
		const unknown = meetCode();
		const res = await resolve(owner.headers, unknown);
		expect(await json(res)).toEqual({
			detail: `No meeting of yours matches the code ${unknown}: send a bot to it first, or pick one of your meetings from the list`,
		});
	});

	it("refuses what is not a meeting number, link or code with a field error in words", async () => {
		const { headers } = await userWithKey();
		const cases: [string, RegExp][] = [
			["https://example.com/meeting/42", /^That is not a Google Meet, Zoom or Teams meeting link/],
			["https://meet.google.com/landing", /^That is not a Google Meet, Zoom or Teams meeting link/],
			["two words", /^Type a meeting's number, its link/],
			["   ", /^Type a meeting's number, its link/],
		];
		for (const [ref, words] of cases) {
			const res = await resolve(headers, ref);
			expect(res.status, ref).toBe(422);
			const { detail } = await json<{ detail: { loc: string[]; msg: string }[] }>(res);
			expect(detail[0]?.loc).toEqual(["query", "meeting"]);
			expect(detail[0]?.msg).toMatch(words);
		}
		expect((await resolve(headers, "x".repeat(2001))).status).toBe(422);
	});
});

describe("GET /meetings/{meeting_id} with something that is not a number", () => {
	it("is a 422 that says what a meeting id is, not zod's NaN", async () => {
		const { headers } = await userWithKey();
		for (const bad of [meetCode(), "12abc", "-3", "0", "1.5"]) {
			const res = await call("GET", `/meetings/${bad}`, { headers });
			expect(res.status, bad).toBe(422);
			const { detail } = await json<{ detail: { loc: string[]; msg: string }[] }>(res);
			expect(detail[0]?.loc).toEqual(["param", "meeting_id"]);
			expect(detail[0]?.msg).toMatch(/^meeting_id must be a meeting's number/);
			expect(detail[0]?.msg).not.toMatch(/NaN/i);
		}
	});
});
