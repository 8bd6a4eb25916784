/**
 * A `multipart/form-data` body read part by part as it arrives (RFC 7578): each part's bytes are
 * handed on in pieces and never gathered, so an upload holds one piece at a time, not the request.
 * `request.formData()` (workerd, Hono) reads the whole body into memory first.
 */
import { concatBytes } from "../bytes";

export interface PartHead {
	/** The form field's name (`files`). */
	name: string;
	/** The file name the client sent; null for a field that is no file. */
	filename: string | null;
	contentType: string | null;
}

export class MultipartError extends Error {}

const encoder = new TextEncoder();
const CRLF = encoder.encode("\r\n");
const HEAD_END = encoder.encode("\r\n\r\n");
/** Part headers are a few lines; anything longer is not a form a browser or client sends. */
const MAX_HEAD_BYTES = 16 * 1024;

/** The boundary of a `multipart/form-data` content type, or null when it is none. */
export function formBoundary(contentType: string | null): string | null {
	if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
	const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
	return match?.[1] ?? match?.[2] ?? null;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
	const first = needle[0] as number;
	for (let i = haystack.indexOf(first, from); i >= 0 && i <= haystack.length - needle.length; i = haystack.indexOf(first, i + 1)) {
		let j = 1;
		while (j < needle.length && haystack[i + j] === needle[j]) j++;
		if (j === needle.length) return i;
	}
	return -1;
}

function parseHead(bytes: Uint8Array): PartHead {
	const lines = new TextDecoder().decode(bytes).split("\r\n");
	let disposition = "";
	let contentType: string | null = null;
	for (const line of lines) {
		const colon = line.indexOf(":");
		if (colon < 0) continue;
		const field = line.slice(0, colon).trim().toLowerCase();
		const value = line.slice(colon + 1).trim();
		if (field === "content-disposition") disposition = value;
		else if (field === "content-type") contentType = value;
	}
	if (!/^form-data\s*(;|$)/i.test(disposition)) throw new MultipartError("a part without Content-Disposition: form-data");
	const param = (key: string) => {
		const match =
			new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, "i").exec(disposition) ??
			new RegExp(`;\\s*${key}=([^;\\s]+)`, "i").exec(disposition);
		return match?.[1]?.replace(/\\(.)/g, "$1") ?? null;
	};
	return { name: param("name") ?? "", filename: param("filename"), contentType };
}

/**
 * Reads `body` part by part. For each part, `onPart` gets its head and its bytes as an async
 * iterable, which it must read to the end (or throw) before the next part is read. At most
 * `maxBytes` of the body are read; past that it throws `tooLarge()`.
 */
export async function readMultipart(
	body: ReadableStream<Uint8Array>,
	boundary: string,
	maxBytes: number,
	tooLarge: () => Error,
	onPart: (head: PartHead, bytes: AsyncIterable<Uint8Array>) => Promise<void>,
): Promise<void> {
	const delimiter = encoder.encode(`\r\n--${boundary}`);
	const reader = body.getReader();
	let read = 0;
	let done = false;
	// A CRLF in front, so the first boundary reads like every later one.
	let buffer: Uint8Array = CRLF;
	const more = async (): Promise<boolean> => {
		if (done) return false;
		let next: ReadableStreamReadResult<Uint8Array>;
		try {
			next = await reader.read();
		} catch {
			throw new MultipartError("the body could not be read to its end");
		}
		if (next.done) {
			done = true;
			return false;
		}
		read += next.value.length;
		if (read > maxBytes) throw tooLarge();
		buffer = concatBytes([buffer, next.value]);
		return true;
	};
	/** Until `needle` is in the buffer; its index. */
	const find = async (needle: Uint8Array, limit: number): Promise<number> => {
		for (;;) {
			const at = indexOf(buffer, needle);
			if (at >= 0) return at;
			if (buffer.length > limit) throw new MultipartError("a part header is too long");
			if (!(await more())) throw new MultipartError("the body ends inside a part");
		}
	};
	try {
		// The preamble before the first boundary is skipped.
		for (;;) {
			const at = indexOf(buffer, delimiter);
			if (at >= 0) {
				buffer = buffer.subarray(at + delimiter.length);
				break;
			}
			buffer = buffer.subarray(Math.max(0, buffer.length - delimiter.length));
			if (!(await more())) throw new MultipartError("no boundary in the body");
		}
		for (;;) {
			while (buffer.length < 2) if (!(await more())) throw new MultipartError("the body ends after a boundary");
			if (buffer[0] === 0x2d && buffer[1] === 0x2d) return;
			const lineEnd = await find(CRLF, MAX_HEAD_BYTES);
			const headEnd = await find(HEAD_END, MAX_HEAD_BYTES);
			const head = parseHead(buffer.subarray(lineEnd + 2, headEnd));
			buffer = buffer.subarray(headEnd + HEAD_END.length);
			let ended = false;
			async function* bytes(): AsyncGenerator<Uint8Array> {
				for (;;) {
					const at = indexOf(buffer, delimiter);
					if (at >= 0) {
						if (at > 0) yield buffer.slice(0, at);
						buffer = buffer.subarray(at + delimiter.length);
						ended = true;
						return;
					}
					// Everything but a tail that may be the start of the delimiter is this part's.
					const safe = buffer.length - (delimiter.length - 1);
					if (safe > 0) {
						yield buffer.slice(0, safe);
						buffer = buffer.subarray(safe);
					}
					if (!(await more())) throw new MultipartError("the body ends inside a part");
				}
			}
			await onPart(head, bytes());
			if (!ended) for await (const _ of bytes());
		}
	} finally {
		reader.releaseLock();
	}
}
