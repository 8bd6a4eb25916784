/**
 * Exports and public shares are rendered once per version of the transcript
 * (src/meetings/transcript-cache.ts, docs/api.md#exports): kept in R2 under an ETag made of the
 * meeting's segment counter (moved by the database with every segment stored or replaced) and
 * its head, answered 304 to a client that names the ETag, and made again when either changes.
 */
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { segmentVersion } from "../../../src/meetings/transcript-cache";
import { call, json, userWithKey } from "../support";
import { liveMeeting, segment } from "./helpers";

const exportOf = (headers: Record<string, string>, code: string, format: string, etag?: string) =>
	call("GET", `/transcripts/google_meet/${code}?format=${format}`, { headers: { ...headers, ...(etag ? { "If-None-Match": etag } : {}) } });

/** Overwrites the kept rendering's bytes, keeping its version: what is served next shows whether it was rendered again. */
async function markKept(key: string): Promise<void> {
	const kept = await env.RECORDINGS.get(key);
	expect(kept?.customMetadata?.etag).toBeTruthy();
	await env.RECORDINGS.put(key, "KEPT RENDERING", { customMetadata: kept?.customMetadata });
}

describe("the segment counter", () => {
	it("moves with each segment stored and each draft replaced", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await liveMeeting(headers);
		expect(await segmentVersion(env, meeting.id)).toBe(0);
		await bot.send({ type: "segment", segment: segment({ segment_id: "a", text: "draft", completed: false }) });
		expect(await segmentVersion(env, meeting.id)).toBe(1);
		await bot.send({ type: "segment", segment: segment({ segment_id: "a", text: "Confirmed." }) });
		expect(await segmentVersion(env, meeting.id)).toBe(2);
		await bot.send({ type: "segment", segment: segment({ segment_id: "b", text: "Another.", start: 3, end: 4 }) });
		expect(await segmentVersion(env, meeting.id)).toBe(3);
	});
});

describe("exports by version", () => {
	it("renders once per version, answers 304 to its ETag, and renders again when a segment changes", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ segment_id: "a", text: "First words." }) });
		const first = await exportOf(headers, code, "srt");
		expect(first.status).toBe(200);
		const etag = first.headers.get("etag") ?? "";
		expect(etag).toMatch(/^"1-[0-9a-f]{24}"$/);
		expect(first.headers.get("cache-control")).toBe("private, no-store");
		expect(await first.text()).toContain("Alice: First words.");

		const unchanged = await exportOf(headers, code, "srt", etag);
		expect(unchanged.status).toBe(304);
		expect(await unchanged.text()).toBe("");
		expect(unchanged.headers.get("etag")).toBe(etag);
		// Weak and listed tags match too, as for any GET.
		expect((await exportOf(headers, code, "srt", `"x", W/${etag}`)).status).toBe(304);

		// The same version is served from what was kept, not rendered again.
		await markKept(`transcript-cache/${meeting.id}/export.srt`);
		const again = await exportOf(headers, code, "srt");
		expect(again.headers.get("etag")).toBe(etag);
		expect(await again.text()).toBe("KEPT RENDERING");

		// A new segment is a new version: the old ETag no longer matches, and the new words are there.
		await bot.send({ type: "segment", segment: segment({ segment_id: "b", text: "More words.", start: 5, end: 6 }) });
		const changed = await exportOf(headers, code, "srt", etag);
		expect(changed.status).toBe(200);
		expect(changed.headers.get("etag")).not.toBe(etag);
		expect(await changed.text()).toContain("Alice: More words.");
	});

	it("renders again when the meeting's head changes (its status, end and title), with no new segment", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "Hello." }) });
		const live = await exportOf(headers, code, "txt");
		const etag = live.headers.get("etag") ?? "";
		expect(await live.text()).toContain("Status: active");
		await call("DELETE", `/bots/google_meet/${code}`, { headers });
		await bot.status("completed");
		const ended = await exportOf(headers, code, "txt", etag);
		expect(ended.status).toBe(200);
		expect(await ended.text()).toContain("Status: completed");
		const renamed = await call("PATCH", `/meetings/google_meet/${code}`, {
			headers,
			json: { title: "Weekly sync" },
		});
		expect(renamed.status).toBe(200);
		const titled = await exportOf(headers, code, "txt", ended.headers.get("etag") ?? "");
		expect(titled.status).toBe(200);
		expect(await titled.text()).toContain("Meeting: Weekly sync");
		// Each format is its own rendering.
		expect((await exportOf(headers, code, "vtt", titled.headers.get("etag") ?? "")).status).toBe(200);
		expect(await env.RECORDINGS.head(`transcript-cache/${meeting.id}/export.vtt`)).not.toBeNull();
	});
});

describe("a public share by version", () => {
	it("is rendered once for any number of anonymous reads, answers 304 to its ETag, and stops at once when revoked", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await liveMeeting(headers);
		await bot.send({ type: "segment", segment: segment({ text: "Shared words." }) });
		const made = await json<{ url: string; share_id: string }>(await call("POST", `/transcripts/google_meet/${code}/share`, { headers }));
		const first = await SELF.fetch(made.url);
		expect(first.status).toBe(200);
		expect(first.headers.get("cache-control")).toBe("private, no-cache");
		const etag = first.headers.get("etag") ?? "";
		expect(await first.text()).toContain("Alice: Shared words.");
		await markKept(`transcript-cache/${meeting.id}/share.txt`);
		expect(await (await SELF.fetch(made.url)).text()).toBe("KEPT RENDERING");
		const revalidated = await SELF.fetch(made.url, { headers: { "If-None-Match": etag } });
		expect(revalidated.status).toBe(304);

		await bot.send({ type: "segment", segment: segment({ segment_id: "b", text: "Later words.", start: 5, end: 6 }) });
		const newer = await SELF.fetch(made.url, { headers: { "If-None-Match": etag } });
		expect(newer.status).toBe(200);
		expect(await newer.text()).toContain("Alice: Later words.");

		// Access is checked before the version: a revoked share is 404 whatever ETag it is sent.
		expect((await call("DELETE", `/transcripts/google_meet/${code}/share/${made.share_id}`, { headers })).status).toBe(204);
		expect((await SELF.fetch(made.url, { headers: { "If-None-Match": etag } })).status).toBe(404);
	});
});
