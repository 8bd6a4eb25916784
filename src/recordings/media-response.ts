import type { MediaFileRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { parseRange } from "./byte-range";
import { contentTypeOf, mediaFileName } from "./download-link";

/**
 * A media file's bytes from R2 as an HTTP response: the whole file (200) or one range (206),
 * 416 with `Content-Range: bytes *\/size` for a range past the end. Ranges are read from R2 as
 * ranges, so seeking in a long recording never reads the whole object.
 */
export async function mediaBytes(
	env: Env,
	file: MediaFileRow,
	rangeHeader: string | undefined,
	disposition: "inline" | "attachment",
): Promise<Response> {
	const head = await env.RECORDINGS.head(file.storageKey);
	if (!head) throw notFound("Recording media not found in storage");
	const size = head.size;
	const range = parseRange(rangeHeader, size);
	const headers = new Headers({
		"Content-Type": contentTypeOf(file.format),
		"Content-Disposition": `${disposition}; filename="${mediaFileName(file)}"`,
		"Accept-Ranges": "bytes",
		"Cache-Control": "private, no-store",
		ETag: head.httpEtag,
	});
	if (range.kind === "unsatisfiable") {
		headers.set("Content-Range", `bytes */${size}`);
		headers.set("Content-Type", "application/json");
		return new Response(JSON.stringify({ detail: "Requested range not satisfiable" }), { status: 416, headers });
	}
	const object = await env.RECORDINGS.get(
		file.storageKey,
		range.kind === "partial" ? { range: { offset: range.start, length: range.end - range.start + 1 } } : undefined,
	);
	if (!object || !("body" in object)) throw new ApiError(404, "Recording media not found in storage");
	if (range.kind === "partial") {
		headers.set("Content-Range", `bytes ${range.start}-${range.end}/${size}`);
		headers.set("Content-Length", String(range.end - range.start + 1));
		return new Response(object.body, { status: 206, headers });
	}
	headers.set("Content-Length", String(size));
	return new Response(object.body, { status: 200, headers });
}
