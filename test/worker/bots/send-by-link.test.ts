/**
 * POST /bots with a link instead of platform and id: the platform, native id and passcode are
 * read from `meeting_url` (or `url`, which the reference's own client sends), as the reference's
 * meeting-api derives them; a link that is no meeting link is a 422 naming the field.
 */
import { describe, expect, it } from "vitest";
import { type Meeting, meetCode } from "../../shared/meetings";
import { spawnRequestFor } from "../meetings/bot-sim";
import { call, json, userWithKey } from "../support";

interface FieldError {
	loc: (string | number)[];
	msg: string;
}

const THREAD = "19:meeting_NjA4ZTk3YjQtYTFiNS00ZTIzLWJjYjYtNDkxNjc4YzQ0ZDM1@thread.v2";
const CONTEXT = { Tid: "72f988bf-86f1-41af-91ab-2d7cd011db47", Oid: "1f6c5a9e-3b8d-4c1e-9e2a-7d4b5c6a8f90" };

/** A link, and the meeting each link alone must give: platform, id, passcode and the URL the bot joins. */
const LINKS: [name: string, link: () => { url: string; platform: string; id: string; passcode: string | null; joins: string }][] = [
	[
		"Google Meet",
		() => {
			const code = meetCode();
			return {
				url: `https://meet.google.com/${code}?authuser=1`,
				platform: "google_meet",
				id: code,
				passcode: null,
				joins: `https://meet.google.com/${code}`,
			};
		},
	],
	[
		"Zoom on a vanity subdomain, with its passcode",
		() => {
			const id = String(80_000_000_000 + Math.floor(Math.random() * 9_999_999_999)).slice(0, 11);
			return {
				url: `https://us05web.zoom.us/j/${id}?pwd=Secr3tPass`,
				platform: "zoom",
				id,
				passcode: "Secr3tPass",
				joins: `https://zoom.us/j/${id}?pwd=Secr3tPass`,
			};
		},
	],
	[
		"Teams meet link with its passcode",
		() => {
			const id = String(9_300_000_000_000 + Math.floor(Math.random() * 99_999_999_999));
			return {
				url: `https://teams.live.com/meet/${id}?p=WB7TSXPa`,
				platform: "teams",
				id,
				passcode: "WB7TSXPa",
				joins: `https://teams.live.com/meet/${id}?p=WB7TSXPa`,
			};
		},
	],
	[
		"Teams meetup-join link with its tenant context",
		() => {
			const thread = THREAD.replace("NjA4", crypto.randomUUID().slice(0, 8));
			const context = encodeURIComponent(JSON.stringify(CONTEXT));
			const joins = `https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(thread)}/0?context=${context}`;
			return { url: joins, platform: "teams", id: thread, passcode: null, joins };
		},
	],
];

async function postBots(headers: Record<string, string>, body: Record<string, unknown>) {
	return call("POST", "/bots", { headers, json: body });
}

async function meetingCount(headers: Record<string, string>): Promise<number> {
	return (await json<{ meetings: unknown[] }>(await call("GET", "/meetings", { headers }))).meetings.length;
}

describe("POST /bots with only a meeting link", () => {
	it.each(LINKS)("reads platform, id and passcode from a %s link", async (_name, make) => {
		const { headers } = await userWithKey();
		const link = make();
		const res = await postBots(headers, { meeting_url: link.url, bot_name: "Linked" });
		expect(res.status, await res.clone().text()).toBe(201);
		const meeting = await json<Meeting>(res);
		expect(meeting).toMatchObject({ platform: link.platform, native_meeting_id: link.id, status: "requested" });
		expect(meeting.constructed_meeting_url).toBe(link.joins);
		const spawn = await spawnRequestFor(meeting.id);
		expect(spawn).toMatchObject({ platform: link.platform, native_meeting_id: link.id, passcode: link.passcode, meeting_url: link.joins });
		// The meeting is reached by the inferred address, like one sent by platform and id.
		expect((await call("DELETE", `/bots/${link.platform}/${encodeURIComponent(link.id)}`, { headers })).status).toBe(204);
	});

	it("reads `url` as the link when meeting_url is not sent", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const res = await postBots(headers, { url: `meet.google.com/${code}`, language: "en" });
		expect(res.status).toBe(201);
		expect(await json<Meeting>(res)).toMatchObject({ platform: "google_meet", native_meeting_id: code });
	});

	it("takes the reference client's body (platform, id, bot_name, language and url) with the explicit id authoritative", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const body = {
			platform: "google_meet",
			native_meeting_id: code,
			bot_name: "VexaSlim",
			language: "en",
			url: `https://meet.google.com/${code}`,
		};
		const res = await postBots(headers, body);
		expect(res.status).toBe(201);
		const meeting = await json<Meeting>(res);
		expect(meeting).toMatchObject({
			platform: "google_meet",
			native_meeting_id: code,
			constructed_meeting_url: `https://meet.google.com/${code}`,
		});
		expect(await spawnRequestFor(meeting.id)).toMatchObject({ bot_name: "VexaSlim", language: "en" });
	});

	it("answers 422 naming meeting_url (or url) for a link it cannot read, and creates nothing", async () => {
		const { headers } = await userWithKey();
		for (const [body, field] of [
			[{ meeting_url: "https://example.com/meeting/123" }, "meeting_url"],
			[{ meeting_url: "https://meet.google.com/not-a-code" }, "meeting_url"],
			[{ meeting_url: "discord://x" }, "meeting_url"],
			[{ url: "https://example.com/meeting/123" }, "url"],
		] as const) {
			const res = await postBots(headers, body);
			expect(res.status, JSON.stringify(body)).toBe(422);
			const { detail } = await json<{ detail: FieldError[] }>(res);
			expect(detail).toEqual([
				{ loc: ["body", field], msg: expect.stringContaining("Not a Google Meet, Zoom or Teams meeting link"), type: "value_error" },
			]);
		}
		expect(await meetingCount(headers)).toBe(0);
	});

	it("answers 422 when platform and link disagree, or an id comes without a platform", async () => {
		const { headers } = await userWithKey();
		const mismatch = await postBots(headers, { platform: "zoom", meeting_url: `https://meet.google.com/${meetCode()}` });
		expect(mismatch.status).toBe(422);
		expect((await json<{ detail: FieldError[] }>(mismatch)).detail[0]).toMatchObject({
			loc: ["body", "meeting_url"],
			msg: "Not a zoom meeting link",
		});
		const noPlatform = await postBots(headers, { native_meeting_id: meetCode() });
		expect(noPlatform.status).toBe(422);
		expect((await json<{ detail: FieldError[] }>(noPlatform)).detail[0]?.loc).toEqual(["body", "platform"]);
		const nothing = await postBots(headers, { bot_name: "x" });
		expect(nothing.status).toBe(422);
		expect((await json<{ detail: FieldError[] }>(nothing)).detail[0]?.loc).toEqual(["body", "native_meeting_id"]);
		expect(await meetingCount(headers)).toBe(0);
	});
});
