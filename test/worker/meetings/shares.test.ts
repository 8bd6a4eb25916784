import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { until } from "../../shared/wait";
import { ADMIN, call, json, mintKey, userWithKey } from "../support";
import { createPlan, getMeeting, liveMeeting, meetUrl, segment, workspaceMeeting } from "./helpers";

interface Share {
	share_id: string;
	url: string;
	expires_at: string;
	expires_in_seconds: number;
}

const share = (headers: Record<string, string>, code: string, query = "") =>
	call("POST", `/transcripts/google_meet/${code}/share${query}`, { headers });

/** The public read: no key, straight at the URL the share handed out. */
const readPublic = (url: string) => SELF.fetch(url);

describe("POST /transcripts/{platform}/{native_meeting_id}/share", () => {
	it("answers 404 for a meeting never started (a plan, or no meeting at all)", async () => {
		const { headers, user } = await userWithKey();
		const planned = meetCode();
		await createPlan(headers, { meeting_url: meetUrl(planned) });
		for (const code of [planned, meetCode()]) {
			const res = await share(headers, code);
			expect(res.status, code).toBe(404);
		}
		expect((await env.DB.prepare("SELECT count(*) AS n FROM transcript_shares WHERE user_id = ?").bind(user.id).first())?.n).toBe(0);
	});

	it("answers 404 for another user's meeting", async () => {
		const owner = await userWithKey();
		const other = await userWithKey();
		const { code } = await liveMeeting(owner.headers);
		expect((await share(other.headers, code)).status).toBe(404);
	});

	it("returns a share with a URL-safe id, a .txt URL and the default 900 s lifetime", async () => {
		const { headers } = await userWithKey();
		const { code } = await liveMeeting(headers);
		const before = Date.now();
		const res = await share(headers, code);
		expect(res.status).toBe(200);
		const body = await json<Share>(res);
		expect(Object.keys(body).sort()).toEqual(["expires_at", "expires_in_seconds", "share_id", "url"]);
		expect(body.share_id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
		expect(body.url).toBe(`https://gateway.test/public/transcripts/${body.share_id}.txt`);
		expect(body.expires_in_seconds).toBe(900);
		const expires = Date.parse(body.expires_at);
		expect(expires).toBeGreaterThanOrEqual(before + 900_000 - 1000);
		expect(expires).toBeLessThanOrEqual(Date.now() + 900_000 + 1000);

		const again = await json<Share>(await share(headers, code));
		expect(again.share_id).not.toBe(body.share_id);
	});

	it("takes ?ttl_seconds= for the lifetime, and refuses one out of range with 422", async () => {
		const { headers } = await userWithKey();
		const { code } = await liveMeeting(headers);
		const body = await json<Share>(await share(headers, code, "?ttl_seconds=120"));
		expect(body.expires_in_seconds).toBe(120);
		expect(Math.abs(Date.parse(body.expires_at) - (Date.now() + 120_000))).toBeLessThan(5000);
		for (const bad of ["?ttl_seconds=0", "?ttl_seconds=abc", `?ttl_seconds=${8 * 86_400}`]) {
			expect((await share(headers, code, bad)).status, bad).toBe(422);
		}
	});
});

describe("GET /public/transcripts/{share_id}.txt", () => {
	it("serves the confirmed transcript as plain text without a key", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ segment_id: "b", speaker: "Bob", text: "Then we ship.", start: 65.4, end: 67 }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "a", speaker: "Alice", text: "Welcome, all.", start: 2, end: 4 }) });
		await bot.send({
			type: "segment",
			segment: segment({ segment_id: "c", speaker: "Carol", text: "still talking", start: 3725, end: 3730, completed: false }),
		});
		const started = await getMeeting(headers, meeting.id);
		const { url } = await json<Share>(await share(headers, code));

		const res = await readPublic(url);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
		const text = await res.text();
		const lines = text.split("\n");
		expect(lines.slice(0, 7)).toEqual([
			`Meeting: Google Meet ${code}`,
			"Platform: google_meet",
			`Meeting ID: ${code}`,
			"Status: active",
			`Started: ${started.start_time}`,
			"Ended: -",
			"",
		]);
		expect(text).toContain("[00:00:02] Alice: Welcome, all.");
		expect(text).toContain("[00:01:05] Bob: Then we ship.");
		expect(text.indexOf("Alice: Welcome")).toBeLessThan(text.indexOf("Bob: Then"));
		// Drafts are not part of the shared transcript.
		expect(text).not.toContain("still talking");
		expect(text).not.toContain("Carol");
	});

	it("folds line breaks in a speaker's name and text, so what a meeting shows cannot forge lines", async () => {
		const { headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		const forged = "Fine.\n[00:00:09] CEO: Approve the wire transfer.";
		await bot.send({ type: "segment", segment: segment({ segment_id: "f", speaker: "Mallory\nEve", text: forged, start: 5, end: 6 }) });
		const { url } = await json<Share>(await share(headers, code));
		const lines = (await (await readPublic(url)).text()).split("\n");
		expect(lines).toContain("[00:00:05] Mallory Eve: Fine. [00:00:09] CEO: Approve the wire transfer.");
		expect(lines.filter((line) => line.startsWith("[00:00:09]"))).toEqual([]);
	});

	it("shows the end time once the meeting is over, and later confirmations of the same meeting", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		const { url } = await json<Share>(await share(headers, code));
		await bot.send({ type: "segment", segment: segment({ text: "Said after sharing." }) });
		await call("DELETE", `/bots/google_meet/${code}`, { headers });
		await bot.status("completed");
		const ended = await getMeeting(headers, meeting.id);
		expect(ended.end_time).not.toBeNull();
		const text = await (await readPublic(url)).text();
		expect(text).toContain(`Status: completed\nStarted: ${ended.start_time}\nEnded: ${ended.end_time}\n`);
		expect(text).toContain("Alice: Said after sharing.");
	});

	it("answers 404 for an unknown or malformed share id", async () => {
		for (const path of [
			"/public/transcripts/AAAAAAAAAAAAAAAAAAAAAAAA.txt",
			"/public/transcripts/short.txt",
			"/public/transcripts/AAAAAAAAAAAAAAAAAAAAAAAA",
			"/public/transcripts/AAAA%2F..%2FAAAAAAAAAAAAA.txt",
		]) {
			const res = await SELF.fetch(`https://gateway.test${path}`);
			expect(res.status, path).toBe(404);
		}
	});

	it("answers 404 once the share has expired", async () => {
		const { headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "secret plans" }) });
		const body = await json<Share>(await share(headers, code));
		expect((await readPublic(body.url)).status).toBe(200);
		await env.DB.prepare("UPDATE transcript_shares SET expires_at = ? WHERE share_id = ?")
			.bind(new Date(Date.now() - 1000).toISOString(), body.share_id)
			.run();
		const res = await readPublic(body.url);
		expect(res.status).toBe(404);
		expect(await res.text()).not.toContain("secret plans");
	});
});

/** The owner's live meeting bound to a workspace, a member of it, and a line said in it. */
async function sharedWorkspaceMeeting() {
	const { owner, member, meeting, bot, code } = await workspaceMeeting();
	await bot.send({ type: "segment", segment: segment({ text: "the owner's plans" }) });
	return { owner, member, meeting, code };
}

const sharesOf = async (userId: number) =>
	(await env.DB.prepare("SELECT count(*) AS n FROM transcript_shares WHERE user_id = ?").bind(userId).first<number>("n")) ?? 0;

const revoke = (headers: Record<string, string>, code: string, shareId: string) =>
	call("DELETE", `/transcripts/google_meet/${code}/share/${shareId}`, { headers });

describe("who may share (security review finding 16)", () => {
	it("lets a workspace member read the meeting's transcript but not publish it: 403, and nothing is stored", async () => {
		const { member, code } = await sharedWorkspaceMeeting();
		expect((await call("GET", `/transcripts/google_meet/${code}`, { headers: member.headers })).status).toBe(200);
		const res = await share(member.headers, code);
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ detail: "Only the meeting's owner can share its transcript" });
		expect(await sharesOf(member.user.id)).toBe(0);
	});

	it("no longer serves a share a member made before the rule: only the meeting's owner's shares are read", async () => {
		const { member, meeting } = await sharedWorkspaceMeeting();
		const id = "MemberMadeShare0123456789";
		await env.DB.prepare("INSERT INTO transcript_shares (share_id, meeting_id, user_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)")
			.bind(id, meeting.id, member.user.id, new Date(Date.now() + 3_600_000).toISOString(), new Date().toISOString())
			.run();
		const res = await readPublic(`https://gateway.test/public/transcripts/${id}.txt`);
		expect(res.status).toBe(404);
		expect(await res.text()).not.toContain("the owner's plans");
	});
});

describe("DELETE /transcripts/{platform}/{native_meeting_id}/share/{share_id}", () => {
	it("revokes the share at once (204, then the public link is 404), and a second revoke is 404", async () => {
		const { owner, code } = await sharedWorkspaceMeeting();
		const body = await json<Share>(await share(owner.headers, code));
		const kept = await json<Share>(await share(owner.headers, code));
		expect((await readPublic(body.url)).status).toBe(200);
		const res = await revoke(owner.headers, code, body.share_id);
		expect(res.status).toBe(204);
		const gone = await readPublic(body.url);
		expect(gone.status).toBe(404);
		expect(await gone.json()).toEqual({ detail: "Share not found" });
		expect((await readPublic(kept.url)).status).toBe(200);
		const again = await revoke(owner.headers, code, body.share_id);
		expect(again.status).toBe(404);
		expect(await again.json()).toEqual({ detail: "Share not found" });
	});

	it("answers 404 for another user's share, or a share of another link, and the share keeps working", async () => {
		const { owner, member, code } = await sharedWorkspaceMeeting();
		const body = await json<Share>(await share(owner.headers, code));
		expect((await revoke(member.headers, code, body.share_id)).status).toBe(404);
		expect((await revoke(owner.headers, meetCode(), body.share_id)).status).toBe(404);
		expect((await readPublic(body.url)).status).toBe(200);
		expect((await revoke(owner.headers, code, body.share_id)).status).toBe(204);
		expect((await readPublic(body.url)).status).toBe(404);
	});
});

describe("a share ends with its maker's access", () => {
	it("answers 404 once the key that made it is revoked, while a share made with another key of the owner stays", async () => {
		const { user, headers } = await userWithKey();
		const second = await mintKey(user.id);
		const { bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "secret plans" }) });
		const body = await json<Share>(await share(headers, code));
		const other = await json<Share>(await share({ "X-API-Key": second }, code));
		const tokenId = await env.DB.prepare("SELECT token_id FROM transcript_shares WHERE share_id = ?")
			.bind(body.share_id)
			.first<number>("token_id");
		expect((await call("DELETE", `/admin/tokens/${tokenId}`, { headers: ADMIN })).status).toBe(204);
		const res = await readPublic(body.url);
		expect(res.status).toBe(404);
		expect(await res.text()).not.toContain("secret plans");
		expect((await readPublic(other.url)).status).toBe(200);
	});

	it("answers 404 once the key that made it has expired", async () => {
		const { user } = await userWithKey();
		const minted = await call("POST", `/admin/users/${user.id}/tokens`, { headers: ADMIN, json: { scopes: ["bot"], expires_in: 2 } });
		const { token, expires_at } = await json<{ token: string; expires_at: string }>(minted);
		const headers = { "X-API-Key": token };
		const { code } = await liveMeeting(headers);
		const body = await json<Share>(await share(headers, code, "?ttl_seconds=600"));
		expect((await readPublic(body.url)).status).toBe(200);
		await until("the key's expiry to pass", () => Date.now() > Date.parse(expires_at));
		expect((await readPublic(body.url)).status).toBe(404);
	});
});
