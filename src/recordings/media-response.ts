import type { MediaFilePartRow, MediaFileRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { parseRange } from "./byte-range";
import { contentTypeOf, mediaFileName } from "./download-link";
import { filePartsInOrder } from "./part-store";

/** Where the bytes of a media file are: one object, or a streamed file's parts in order. */
interface Layout {
	size: number;
	etag: string;
	/** The file's bytes [start, end] as one stream. */
	read(start: number, end: number): Promise<ReadableStream<Uint8Array>>;
}

/**
 * A media file's bytes from R2 as an HTTP response: the whole file (200) or one range (206),
 * 416 with `Content-Range: bytes *\/size` for a range past the end. Ranges are read from R2 as
 * ranges, so seeking in a long recording never reads the whole object; a streamed file is its
 * parts in order, and a range reads only the parts (and the spans of them) it covers.
 */
export async function mediaBytes(
	env: Env,
	file: MediaFileRow,
	rangeHeader: string | undefined,
	disposition: "inline" | "attachment",
): Promise<Response> {
	const layout = file.parts === null ? await wholeObject(env, file) : await partsInOrder(env, file);
	const size = layout.size;
	const range = parseRange(rangeHeader, size);
	const headers = new Headers({
		"Content-Type": contentTypeOf(file),
		"Content-Disposition": `${disposition}; filename="${mediaFileName(file)}"`,
		"Accept-Ranges": "bytes",
		"Cache-Control": "private, no-store",
		ETag: layout.etag,
	});
	if (range.kind === "unsatisfiable") {
		headers.set("Content-Range", `bytes */${size}`);
		headers.set("Content-Type", "application/json");
		return new Response(JSON.stringify({ detail: "Requested range not satisfiable" }), { status: 416, headers });
	}
	const [start, end] = range.kind === "partial" ? [range.start, range.end] : [0, size - 1];
	const body = await layout.read(start, end);
	headers.set("Content-Length", String(end - start + 1));
	if (range.kind === "partial") {
		headers.set("Content-Range", `bytes ${start}-${end}/${size}`);
		return new Response(body, { status: 206, headers });
	}
	return new Response(body, { status: 200, headers });
}

async function wholeObject(env: Env, file: MediaFileRow): Promise<Layout> {
	const head = await env.RECORDINGS.head(file.storageKey);
	if (!head) throw notFound("Recording media not found in storage");
	return {
		size: head.size,
		etag: head.httpEtag,
		async read(start, end) {
			const whole = start === 0 && end === head.size - 1;
			const object = await env.RECORDINGS.get(file.storageKey, whole ? undefined : { range: { offset: start, length: end - start + 1 } });
			if (!object || !("body" in object)) throw new ApiError(404, "Recording media not found in storage");
			return object.body;
		},
	};
}

async function partsInOrder(env: Env, file: MediaFileRow): Promise<Layout> {
	const parts = await filePartsInOrder(env, file);
	const size = parts.reduce((sum, p) => sum + p.bytes, 0);
	// The parts' rows name the bytes: any replaced part or a new one changes the tag.
	const tag = parts.map((p) => `${p.partNumber}:${p.bytes}:${p.createdAt}`).join(",");
	const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${file.id}|${tag}`)));
	const etag = `"${[...digest.subarray(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
	return { size, etag, read: async (start, end) => concatenated(env.RECORDINGS, spansOf(parts, start, end), end - start + 1) };
}

/** The part objects and the spans of them that hold the file's bytes [start, end]. */
export function spansOf(
	parts: Pick<MediaFilePartRow, "storageKey" | "bytes">[],
	start: number,
	end: number,
): { key: string; offset: number; length: number; whole: boolean }[] {
	const spans = [];
	let at = 0;
	for (const part of parts) {
		const first = Math.max(start, at);
		const last = Math.min(end, at + part.bytes - 1);
		if (first <= last) {
			const length = last - first + 1;
			spans.push({ key: part.storageKey, offset: first - at, length, whole: length === part.bytes });
		}
		at += part.bytes;
		if (at > end) break;
	}
	return spans;
}

/**
 * The spans' bytes one after the other, each read from R2 only when the one before it is sent.
 * A part missing from the bucket, or shorter than its row says, breaks the stream (the length
 * promised in Content-Length is then not met, so the client sees a failed download, not a wrong file).
 */
function concatenated(bucket: R2Bucket, spans: ReturnType<typeof spansOf>, total: number): ReadableStream<Uint8Array> {
	const out = new FixedLengthStream(total);
	const pump = async () => {
		for (const span of spans) {
			const object = await bucket.get(span.key, span.whole ? undefined : { range: { offset: span.offset, length: span.length } });
			if (!object || !("body" in object)) throw new Error(`recording part missing from storage: ${span.key.slice(0, 200)}`);
			await object.body.pipeTo(out.writable, { preventClose: true });
		}
		await out.writable.close();
	};
	pump().catch(async (err: unknown) => {
		console.warn("streamed media file not served whole", err instanceof Error ? err.message : String(err));
		await out.writable.abort(err).catch(() => {});
	});
	return out.readable;
}
