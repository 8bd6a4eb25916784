/**
 * Workspace uploads in R2 (docs/workspace.md#uploads): each file streamed in as its multipart part
 * arrives, hashed and told text from binary on the way, and read back as a stream, so neither an
 * upload nor a read holds a whole file.
 */
import { ApiError } from "../errors";
import type { StoredUpload, UploadUsage } from "./workspace-types";

/** Per file, as the contract says (25 MB). */
export const MAX_UPLOAD_FILE_BYTES = 25 * 1024 * 1024;
/** One upload request in all. */
export const MAX_UPLOAD_REQUEST_BYTES = 60 * 1024 * 1024;
/** R2 multipart: every part but the last the same size, and at least 5 MiB. So an upload holds at most this much. */
const PART_BYTES = 5 * 1024 * 1024;
/** A read for the model sniffs and decodes this much at most (4 bytes a character at worst). */
const MODEL_READ_BYTES_PER_CHAR = 4;

/** A file name safe as one path segment: letters, digits, `.`, `-`, `_`; never hidden, never empty. */
export function sanitizeUploadName(raw: string): string {
	const base = raw.split(/[\\/]/).pop() ?? "";
	const safe = base
		.replace(/[^A-Za-z0-9._-]+/g, "_")
		.replace(/^[._]+/, "")
		.slice(-100);
	return safe || "file";
}

/** Where an upload's bytes are in the bucket: uploads before streaming were stored under their path. */
export const uploadKey = (workspace: string, upload: Pick<StoredUpload, "path" | "key">): string =>
	upload.key ?? `${workspace}/${upload.path}`;

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

/** Whether bytes read so far are still text: UTF-8 throughout, and no NUL. */
class TextSniffer {
	private readonly decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
	text = true;

	push(chunk: Uint8Array): void {
		if (!this.text) return;
		if (chunk.includes(0)) this.text = false;
		else this.check(() => this.decoder.decode(chunk, { stream: true }));
	}

	end(): boolean {
		this.check(() => this.decoder.decode());
		return this.text;
	}

	private check(decode: () => string): void {
		try {
			decode();
		} catch {
			this.text = false;
		}
	}
}

/** Bytes gathered into the equal parts R2's multipart upload asks for. */
class PartBuffer {
	private chunks: Uint8Array[] = [];
	bytes = 0;

	push(chunk: Uint8Array): void {
		this.chunks.push(chunk);
		this.bytes += chunk.length;
	}

	/** The first `n` bytes (all of them when fewer), taken out. */
	take(n = this.bytes): Uint8Array {
		const out = new Uint8Array(Math.min(n, this.bytes));
		let filled = 0;
		while (filled < out.length) {
			const chunk = this.chunks[0] as Uint8Array;
			const used = Math.min(chunk.length, out.length - filled);
			out.set(chunk.subarray(0, used), filled);
			filled += used;
			if (used === chunk.length) this.chunks.shift();
			else this.chunks[0] = chunk.subarray(used);
		}
		this.bytes -= out.length;
		return out;
	}
}

/**
 * Streams one file into the bucket under a key of its own, as its bytes arrive: a file that fits
 * one part is one put, a larger one a multipart upload of 5 MiB parts. `admit(size)` is told the
 * file's size so far and throws to refuse it (too large, over the quota); a refused or broken
 * file leaves nothing behind. The path is known at the end: `uploads/<sha256 prefix>-<name>`.
 */
export async function storeUpload(
	bucket: R2Bucket,
	workspace: string,
	file: { filename: string; contentType: string | null },
	bytes: AsyncIterable<Uint8Array>,
	admit: (size: number) => void,
): Promise<StoredUpload> {
	const name = sanitizeUploadName(file.filename);
	const contentType = file.contentType?.slice(0, 200) || "application/octet-stream";
	const key = `${workspace}/upload-objects/${crypto.randomUUID()}`;
	const options = { httpMetadata: { contentType } };
	const digest = new crypto.DigestStream("SHA-256");
	const hashing = digest.getWriter();
	const sniffer = new TextSniffer();
	const pending = new PartBuffer();
	const parts: R2UploadedPart[] = [];
	let upload: R2MultipartUpload | null = null;
	let size = 0;
	try {
		for await (const chunk of bytes) {
			size += chunk.length;
			admit(size);
			await hashing.write(chunk);
			sniffer.push(chunk);
			pending.push(chunk);
			while (pending.bytes >= PART_BYTES) {
				upload ??= await bucket.createMultipartUpload(key, options);
				parts.push(await upload.uploadPart(parts.length + 1, pending.take(PART_BYTES)));
			}
		}
		if (!upload) await bucket.put(key, pending.take(), options);
		else {
			if (pending.bytes > 0) parts.push(await upload.uploadPart(parts.length + 1, pending.take()));
			await upload.complete(parts);
		}
	} catch (err) {
		await upload?.abort().catch(() => undefined);
		throw err;
	}
	await hashing.close();
	const sha = hex(await digest.digest).slice(0, 12);
	return { name, path: `uploads/${sha}-${name}`, size, key, content_type: contentType, text: sniffer.end() };
}

/** Why a request would take the user past their upload quota, or null: the quota named, and how to free it. */
export function quotaProblem(used: UploadUsage, adding: UploadUsage, quota: UploadUsage): string | null {
	const free = "delete uploads with DELETE /agent/workspace/file?path=uploads/<name> to make room";
	if (used.bytes + adding.bytes > quota.bytes)
		return `Upload quota exceeded: each user may keep ${quota.bytes} bytes of uploads (WORKSPACE_UPLOAD_QUOTA_BYTES) and you keep ${used.bytes}; ${free}`;
	if (used.files + adding.files > quota.files)
		return `Upload quota exceeded: each user may keep ${quota.files} uploaded files (WORKSPACE_UPLOAD_QUOTA_FILES) and you keep ${used.files}; ${free}`;
	return null;
}

/** The upload's bytes, or a 404 when the bucket has lost them. */
async function objectOf(bucket: R2Bucket, workspace: string, upload: StoredUpload, range?: R2Range): Promise<R2ObjectBody> {
	const object = await bucket.get(uploadKey(workspace, upload), range ? { range } : undefined);
	if (!object) throw new ApiError(404, "not found");
	return object;
}

/** Text as a JSON string's inside, piece by piece (a streaming decoder never splits a character). */
function jsonTextPieces(): TransformStream<Uint8Array, string> {
	const decoder = new TextDecoder();
	const piece = (text: string) => JSON.stringify(text).slice(1, -1);
	return new TransformStream({
		transform: (chunk, out) => out.enqueue(piece(decoder.decode(chunk, { stream: true }))),
		flush: (out) => out.enqueue(piece(decoder.decode())),
	});
}

/** Bytes as base64, piece by piece: each piece a multiple of 3 bytes, the rest carried to the next. */
function base64Pieces(): TransformStream<Uint8Array, string> {
	let carry = new Uint8Array(0);
	const encode = (bytes: Uint8Array) => {
		let binary = "";
		for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
		return btoa(binary);
	};
	return new TransformStream({
		transform(chunk, out) {
			const joined = new Uint8Array(carry.length + chunk.length);
			joined.set(carry);
			joined.set(chunk, carry.length);
			const whole = joined.length - (joined.length % 3);
			carry = joined.slice(whole);
			out.enqueue(encode(joined.subarray(0, whole)));
		},
		flush: (out) => out.enqueue(encode(carry)),
	});
}

/**
 * An upload as `GET /workspace/file` answers it, streamed: `{path, content}` with the text for a
 * text file, `{path, content, encoding: "base64"}` for any other.
 */
export async function uploadAsJson(bucket: R2Bucket, workspace: string, upload: StoredUpload): Promise<ReadableStream<Uint8Array>> {
	const object = await objectOf(bucket, workspace, upload);
	const text = upload.text ?? upload.content_type?.startsWith("text/") ?? false;
	const head = `{"path":${JSON.stringify(upload.path)},"content":"`;
	const tail = text ? `"}` : `","encoding":"base64"}`;
	const framed = new TransformStream<string, string>({
		start: (out) => out.enqueue(head),
		transform: (piece, out) => out.enqueue(piece),
		flush: (out) => out.enqueue(tail),
	});
	return object.body
		.pipeThrough(text ? jsonTextPieces() : base64Pieces())
		.pipeThrough(framed)
		.pipeThrough(new TextEncoderStream());
}

/** An upload as the agent's read_file hands it to the model: the start of a text, or what a binary file is. */
export async function uploadForModel(
	bucket: R2Bucket,
	workspace: string,
	upload: StoredUpload,
	maxChars: number,
): Promise<
	| { path: string; content: string; truncated?: true }
	| { path: string; binary: true; size: number; content_type: string | null; note: string }
> {
	if (upload.text === false || (upload.text === null && !upload.content_type?.startsWith("text/")))
		return {
			path: upload.path,
			binary: true,
			size: upload.size,
			content_type: upload.content_type,
			note: "A binary upload: its bytes are not shown to the model. GET /agent/workspace/file gives them as base64.",
		};
	const object = await objectOf(bucket, workspace, upload, { offset: 0, length: maxChars * MODEL_READ_BYTES_PER_CHAR });
	const text = new TextDecoder().decode(await object.arrayBuffer());
	const truncated = text.length > maxChars || upload.size > maxChars * MODEL_READ_BYTES_PER_CHAR;
	return { path: upload.path, content: text.slice(0, maxChars), ...(truncated ? { truncated: true as const } : {}) };
}
