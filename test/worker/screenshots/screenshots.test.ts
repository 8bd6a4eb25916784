/**
 * A bot's screenshots (docs/bot-channel.md#screenshots, docs/api.md#help-and-diagnostics): the
 * upload takes only images of the meeting's own bots, bounded, while it is live; the link that
 * shows one works only as the gateway signed it, for its meeting, until it expires.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SCREENSHOT_MAX_BYTES } from "../../../src/bot-channel/help-report";
import { SCREENSHOTS_PER_ATTEMPT, screenshotKey, screenshotUrl } from "../../../src/screenshots/screenshots";
import { meetCode } from "../../shared/meetings";
import { spawnRequestFor } from "../meetings/bot-sim";
import { getMeeting, sendBot } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { bytesOf, jpegBytes, openLink, pngBytes, uploadScreenshot } from "./fixtures";

async function liveBot() {
	const { user, headers } = await userWithKey();
	const code = meetCode();
	const meeting = await sendBot(headers, code);
	const spawn = await spawnRequestFor(meeting.id);
	return { user, headers, code, meeting, spawn };
}

const stored = async (userId: number, meetingId: number, attempt = 1) =>
	(await env.RECORDINGS.list({ prefix: `screenshots/${userId}/${meetingId}/${attempt}/` })).objects.map((o) => o.key.split("/").pop());

describe("the screenshot upload", () => {
	it("is handed to each bot with its claim, beside the recording upload", async () => {
		const { meeting, spawn } = await liveBot();
		expect(spawn.screenshot_upload_url).toBe(`https://gateway.test/internal/screenshots/${meeting.id}`);
	});

	it("stores a JPEG and a PNG under the meeting's owner, meeting and attempt, as the type their bytes are", async () => {
		const { user, meeting, spawn } = await liveBot();
		const jpeg = await uploadScreenshot(spawn, "help-1.jpg", jpegBytes());
		expect(jpeg.status).toBe(201);
		expect(await jpeg.json()).toEqual({ screenshot: "help-1.jpg", attempt: 1 });
		expect((await uploadScreenshot(spawn, "failure.png", pngBytes())).status).toBe(201);
		const object = await env.RECORDINGS.get(screenshotKey(user.id, meeting.id, { attempt: 1, name: "help-1.jpg" }));
		expect(object?.httpMetadata?.contentType).toBe("image/jpeg");
		expect(new Uint8Array((await object?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(jpegBytes());
		expect((await stored(user.id, meeting.id)).sort()).toEqual(["failure.png", "help-1.jpg"]);
	});

	it("refuses every bad upload with a clear 4xx and stores nothing", async () => {
		const { user, meeting, spawn } = await liveBot();
		const other = await liveBot();
		const html = new TextEncoder().encode("<html><script>alert(1)</script></html>");
		const cases: [string, Promise<Response>, number, string][] = [
			["no token", uploadScreenshot(spawn, "a.jpg", jpegBytes(), { token: null }), 401, "Invalid screenshot upload token"],
			[
				"a forged token",
				uploadScreenshot(spawn, "a.jpg", jpegBytes(), { token: `${meeting.id}.1.9999999999.00` }),
				401,
				"Invalid screenshot upload token",
			],
			[
				"another meeting's token",
				uploadScreenshot(spawn, "a.jpg", jpegBytes(), { token: other.spawn.channel.token }),
				401,
				"Invalid screenshot upload token",
			],
			[
				"a name with capitals",
				uploadScreenshot(spawn, "Shot.jpg", jpegBytes()),
				422,
				"Invalid screenshot name: 1-64 of a-z 0-9 _ - then .jpg or .png",
			],
			[
				"a gif",
				uploadScreenshot(spawn, "shot.gif", jpegBytes(), { type: "image/gif" }),
				422,
				"Invalid screenshot name: 1-64 of a-z 0-9 _ - then .jpg or .png",
			],
			[
				"HTML sent as text/html",
				uploadScreenshot(spawn, "a.jpg", html, { type: "text/html" }),
				415,
				"A screenshot named a.jpg is sent as image/jpeg",
			],
			[
				"a .jpg sent as a PNG",
				uploadScreenshot(spawn, "a.jpg", pngBytes(), { type: "image/png" }),
				415,
				"A screenshot named a.jpg is sent as image/jpeg",
			],
			["HTML sent as a JPEG", uploadScreenshot(spawn, "a.jpg", html), 415, "Body is not a JPEG image"],
			["PNG bytes named .jpg", uploadScreenshot(spawn, "a.jpg", pngBytes()), 415, "Body is not a JPEG image"],
			["JPEG bytes named .png", uploadScreenshot(spawn, "a.png", jpegBytes()), 415, "Body is not a PNG image"],
			[
				"one byte over the cap",
				uploadScreenshot(spawn, "big.jpg", new Uint8Array(SCREENSHOT_MAX_BYTES + 1).fill(0xff)),
				413,
				`Screenshot too large: at most ${SCREENSHOT_MAX_BYTES} bytes`,
			],
		];
		for (const [what, answer, status, detail] of cases) {
			const res = await answer;
			expect(res.status, what).toBe(status);
			expect(await res.json(), what).toEqual({ detail });
		}
		expect(await stored(user.id, meeting.id)).toEqual([]);
	});

	it(`takes at most ${SCREENSHOTS_PER_ATTEMPT} names per attempt; a name sent again replaces its bytes`, async () => {
		const { user, meeting, spawn } = await liveBot();
		for (let i = 0; i < SCREENSHOTS_PER_ATTEMPT; i++) expect((await uploadScreenshot(spawn, `s-${i}.jpg`, jpegBytes())).status).toBe(201);
		const over = await uploadScreenshot(spawn, "one-more.jpg", jpegBytes());
		expect(over.status).toBe(409);
		expect(await over.json()).toEqual({ detail: `This bot already stored ${SCREENSHOTS_PER_ATTEMPT} screenshots` });
		expect((await uploadScreenshot(spawn, "s-0.jpg", jpegBytes(7))).status).toBe(201);
		const replaced = await env.RECORDINGS.get(screenshotKey(user.id, meeting.id, { attempt: 1, name: "s-0.jpg" }));
		expect(new Uint8Array((await replaced?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(jpegBytes(7));
		expect(await stored(user.id, meeting.id)).toHaveLength(SCREENSHOTS_PER_ATTEMPT);
	});

	it("is closed once the meeting has ended", async () => {
		const { user, headers, code, meeting, spawn } = await liveBot();
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		expect(await getMeeting(headers, meeting.id)).toMatchObject({ status: "completed" });
		const res = await uploadScreenshot(spawn, "late.jpg", jpegBytes());
		expect(res.status).toBe(409);
		expect(await res.json()).toEqual({ detail: "The meeting is not live: it takes no screenshots" });
		expect(await stored(user.id, meeting.id)).toEqual([]);
	});
});

describe("a screenshot link", () => {
	async function uploaded() {
		const bot = await liveBot();
		expect((await uploadScreenshot(bot.spawn, "help-1.jpg", jpegBytes())).status).toBe(201);
		const url = await screenshotUrl(env, bot.meeting.id, { attempt: 1, name: "help-1.jpg" });
		if (!url) throw new Error("no link was made");
		return { ...bot, url };
	}

	it("serves the image, privately and never to be cached or sniffed, with no credential but itself", async () => {
		const { url } = await uploaded();
		expect(new URL(url).origin).toBe("https://gateway.test");
		const res = await openLink(url);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("image/jpeg");
		expect(res.headers.get("cache-control")).toBe("private, no-store");
		expect(res.headers.get("x-content-type-options")).toBe("nosniff");
		expect(await bytesOf(res)).toEqual(jpegBytes());
	});

	it("is refused with 403 when any part of it was changed", async () => {
		const { url, meeting } = await uploaded();
		const changed = (edit: (u: URL) => void) => {
			const u = new URL(url);
			edit(u);
			return u.toString();
		};
		const tampered = [
			changed((u) => u.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 3600))),
			changed((u) => u.searchParams.set("signature", `${u.searchParams.get("signature")?.slice(0, -2)}AA`)),
			changed((u) => u.searchParams.delete("signature")),
			changed((u) => {
				u.pathname = u.pathname.replace("/help-1.jpg", "/help-2.jpg");
			}),
			changed((u) => {
				u.pathname = u.pathname.replace(`/${meeting.id}/1/`, `/${meeting.id}/2/`);
			}),
			changed((u) => {
				u.pathname = u.pathname.replace(`/${meeting.id}/`, `/${meeting.id + 1}/`);
			}),
		];
		for (const link of tampered) {
			const res = await openLink(link);
			expect(res.status, link).toBe(403);
			expect(await res.json()).toEqual({ detail: "Invalid screenshot link" });
		}
	});

	it("is refused with 403 once it has expired", async () => {
		const { meeting } = await uploaded();
		const long_ago = new Date(Date.now() - 3600_000);
		const url = await screenshotUrl(env, meeting.id, { attempt: 1, name: "help-1.jpg" }, long_ago);
		const res = await openLink(url ?? "");
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ detail: "Screenshot link expired" });
	});

	it("never serves another user's object: a link is for one meeting, whose owner is read when it is opened", async () => {
		const a = await uploaded();
		const b = await liveBot();
		// A link the gateway signed for B's meeting, naming the object A's bot stored, finds nothing of A's.
		const forB = await screenshotUrl(env, b.meeting.id, { attempt: 1, name: "help-1.jpg" });
		const res = await openLink(forB ?? "");
		expect(res.status).toBe(404);
		expect(await res.json()).toEqual({ detail: "Screenshot not found" });
		expect((await openLink(a.url)).status).toBe(200);
	});

	it("leads nowhere once its meeting is gone", async () => {
		const { url, meeting } = await uploaded();
		await env.DB.prepare("DELETE FROM meetings WHERE id = ?").bind(meeting.id).run();
		const res = await openLink(url);
		expect(res.status).toBe(404);
		expect(await json(res)).toEqual({ detail: "Screenshot not found" });
	});
});
