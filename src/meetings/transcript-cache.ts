/**
 * Rendered transcripts kept by version (docs/api.md#exports): an export or a public share is
 * rendered from every segment of a meeting, tens of MB for a long one, so it is made once per
 * version and kept in R2 (`transcript-cache/<meeting>/<name>`, one object per meeting and kind,
 * overwritten by the next version). The version is a hash of what the rendering reads other than
 * the segments (the meeting's head as it is now) and the meeting's segment counter, which the
 * database moves with every segment stored or replaced (migrations/0018). It is the answer's
 * ETag, so a client that sends it back in If-None-Match gets 304 without a byte rendered.
 */
import type { Env } from "../env";
import { errorName } from "../error-text";
import { sha256Hex } from "../sha256";
import { segmentVersion } from "./transcript-store";

export { segmentVersion };

/** The ETag of one rendering: its kind, the segment counter and everything else it reads. */
async function renderingTag(env: Env, meetingId: number, kind: string, head: unknown): Promise<string> {
	const version = await segmentVersion(env, meetingId);
	return `"${version}-${await sha256Hex(JSON.stringify([kind, meetingId, version, head]), 12)}"`;
}

/** Whether If-None-Match names this ETag (a weak one counts, as for GET; `*` matches anything). */
function notModified(ifNoneMatch: string | null | undefined, etag: string): boolean {
	if (!ifNoneMatch) return false;
	return ifNoneMatch.split(",").some((tag) => {
		const t = tag.trim().replace(/^W\//, "");
		return t === "*" || t === etag;
	});
}

const cacheKey = (meetingId: number, kind: string) => `transcript-cache/${meetingId}/${kind}`;

/** Where a meeting's renderings are kept: deleted with it (src/meetings/meeting-objects.ts). */
export const transcriptCachePrefix = (meetingId: number) => `transcript-cache/${meetingId}/`;

/**
 * One rendering of a meeting's transcript (`kind`, made from `head` and the segments) by version:
 * its ETag, and its text, or null when If-None-Match already names that version (304).
 */
export async function versionedRendering(
	env: Env,
	meetingId: number,
	kind: string,
	head: unknown,
	ifNoneMatch: string | null | undefined,
	render: () => Promise<string>,
): Promise<{ etag: string; body: string | null }> {
	const etag = await renderingTag(env, meetingId, kind, head);
	if (notModified(ifNoneMatch, etag)) return { etag, body: null };
	return { etag, body: await cachedRendering(env, meetingId, kind, etag, render) };
}

/**
 * The rendering under `etag`: the kept one when it is that version, else `render()`'s, kept for
 * the next reader. A bucket that fails only costs the rendering (logged), never the answer.
 */
async function cachedRendering(env: Env, meetingId: number, kind: string, etag: string, render: () => Promise<string>): Promise<string> {
	const key = cacheKey(meetingId, kind);
	try {
		const kept = await env.RECORDINGS.get(key);
		if (kept && kept.customMetadata?.etag === etag) return await kept.text();
	} catch (err) {
		console.error("transcript cache unreadable", key, errorName(err));
	}
	const text = await render();
	try {
		await env.RECORDINGS.put(key, text, { customMetadata: { etag }, httpMetadata: { contentType: "text/plain; charset=utf-8" } });
	} catch (err) {
		console.error("transcript cache not written", key, errorName(err));
	}
	return text;
}
