/**
 * The limits of a clone checked against the pack as it arrives, before isomorphic-git keeps or
 * indexes any of it. An upload-pack answer is pkt-lines; side band 1 carries the pack. The pack
 * declares its object count in its header, each object's unpacked size in the object's own
 * header, and a delta's result size in the delta's first bytes. A count or size past a limit is
 * refused from the declaration alone. Everything else is inflated here once, only to find where
 * each object ends (zlib streams carry no length), with the output counted and dropped: an
 * object that inflates to more than it declared is refused at once.
 */
import { Inflate } from "pako";
import { concatBytes } from "../../src/bytes";
import { type CloneLimits, CloneRefusal, formatBytes, formatCount, tooLarge } from "./clone-limits";

/** What a scan has seen so far. */
export interface PackTally {
	objects: number;
	/** Of those, deltas (counted by their result). */
	deltas: number;
	/** What the objects unpack to: declared sizes, a delta counted by its result. */
	unpackedBytes: number;
	/** Bytes this scan inflated to find the objects' ends. */
	inflatedBytes: number;
}

type ScanLimits = Pick<CloneLimits, "maxUnpackedBytes" | "maxFileBytes" | "maxObjects">;

const malformed = (what: string) => new CloneRefusal(`The repository sent a malformed pack (${what})`, 502);

const OFS_DELTA = 6;
const REF_DELTA = 7;
const OBJECT_TYPES = new Set([1, 2, 3, 4, OFS_DELTA, REF_DELTA]);

/** Reads an upload-pack answer chunk by chunk; `push` throws a CloneRefusal past a limit. */
export class UploadPackScan {
	readonly tally: PackTally = { objects: 0, deltas: 0, unpackedBytes: 0, inflatedBytes: 0 };
	/** Bytes of pkt-lines not yet whole, kept as they came: joined once per line, whatever the chunks. */
	private pending: Uint8Array[] = [];
	private pendingBytes = 0;
	private readonly pack: PackWalk;

	constructor(limits: ScanLimits) {
		this.pack = new PackWalk(limits, this.tally);
	}

	push(chunk: Uint8Array): void {
		this.pending.push(chunk);
		this.pendingBytes += chunk.byteLength;
		// pkt-lines as isomorphic-git reads them: four hex digits of length (0 and 1 carry nothing).
		while (this.pendingBytes >= 4) {
			const hex = String.fromCharCode(...this.peek(4));
			if (!/^[0-9a-f]{4}$/i.test(hex)) throw malformed("not pkt-lines");
			const length = Number.parseInt(hex, 16);
			if (length === 0 || length === 1) {
				this.take(4);
				continue;
			}
			if (length < 4) throw malformed("not pkt-lines");
			if (this.pendingBytes < length) return;
			const line = this.take(length);
			if (line[4] === 1) this.pack.push(line.subarray(5));
		}
	}

	/** The first `n` pending bytes (n is small), left in place. */
	private peek(n: number): Uint8Array {
		const out = new Uint8Array(n);
		let at = 0;
		for (const chunk of this.pending) {
			const part = chunk.subarray(0, n - at);
			out.set(part, at);
			at += part.byteLength;
			if (at === n) break;
		}
		return out;
	}

	/** The first `n` pending bytes, removed. */
	private take(n: number): Uint8Array {
		const whole = concatBytes(this.pending);
		this.pending = whole.byteLength > n ? [whole.subarray(n)] : [];
		this.pendingBytes -= n;
		return whole.subarray(0, n);
	}
}

/** The pack itself: its header, then each object's header and zlib stream, then the trailer (ignored). */
class PackWalk {
	private state: "signature" | "header" | "body" | "done" = "signature";
	private held: Uint8Array = new Uint8Array(0);
	private objectsLeft = 0;
	private body: ObjectBody | null = null;

	constructor(
		private readonly limits: ScanLimits,
		private readonly tally: PackTally,
	) {}

	push(chunk: Uint8Array): void {
		let input = chunk;
		while (input.byteLength > 0 && this.state !== "done") {
			if (this.state === "body" && this.body) {
				const rest = this.body.feed(input);
				if (rest === null) return;
				input = rest;
				this.body.finish();
				this.body = null;
				this.state = --this.objectsLeft > 0 ? "header" : "done";
				continue;
			}
			this.held = concatBytes([this.held, input]);
			input = new Uint8Array(0);
			if (this.state === "signature") {
				if (this.held.byteLength < 12) return;
				this.readSignature(this.held);
				this.held = this.held.subarray(12);
			}
			if (this.state === "header") {
				const header = readObjectHeader(this.held);
				if (!header) return;
				this.body = this.startObject(header);
				input = this.held.subarray(header.length);
				this.held = new Uint8Array(0);
				this.state = "body";
			}
		}
	}

	private readSignature(bytes: Uint8Array): void {
		const view = new DataView(bytes.buffer, bytes.byteOffset, 12);
		if (String.fromCharCode(...bytes.subarray(0, 4)) !== "PACK") throw malformed("no PACK signature");
		const count = view.getUint32(8);
		if (count > this.limits.maxObjects) {
			throw tooLarge(`The repository has ${formatCount(count)} objects, over the limit of ${formatCount(this.limits.maxObjects)}`);
		}
		this.objectsLeft = count;
		this.state = count > 0 ? "header" : "done";
	}

	private startObject(header: ObjectHeader): ObjectBody {
		if (!OBJECT_TYPES.has(header.type)) throw malformed(`object type ${header.type}`);
		this.tally.objects++;
		this.checkSize(header.size);
		const delta = header.type === OFS_DELTA || header.type === REF_DELTA;
		// A delta's own instructions are counted when its result size is read; a whole object now.
		if (delta) this.tally.deltas++;
		else this.count(header.size);
		const onDeltaResult = (result: number) => {
			this.checkSize(result);
			this.count(result);
		};
		return new ObjectBody(header.size, delta ? onDeltaResult : null, this.tally);
	}

	private checkSize(size: number): void {
		if (size > this.limits.maxFileBytes) {
			throw tooLarge(
				`The repository has a file of ${formatBytes(size)} unpacked, over the limit of ${formatBytes(this.limits.maxFileBytes)} per file`,
			);
		}
	}

	private count(size: number): void {
		this.tally.unpackedBytes += size;
		if (this.tally.unpackedBytes > this.limits.maxUnpackedBytes) {
			throw tooLarge(`The repository unpacks to more than ${formatBytes(this.limits.maxUnpackedBytes)}`);
		}
	}
}

interface ObjectHeader {
	type: number;
	/** The unpacked size: of the object, or of a delta's instructions. */
	size: number;
	/** Bytes of the header, the delta's base reference included. */
	length: number;
}

/** An object's header, or null until all its bytes are there. Sizes are read in full, past 32 bits too. */
function readObjectHeader(bytes: Uint8Array): ObjectHeader | null {
	let at = 0;
	let byte = bytes[at++];
	if (byte === undefined) return null;
	const type = (byte >> 4) & 0b111;
	let size = byte & 0b1111;
	let scale = 16;
	while (byte & 0x80) {
		byte = bytes[at++];
		if (byte === undefined) return null;
		if (at > 11) throw malformed("an object size too long");
		size += (byte & 0x7f) * scale;
		scale *= 128;
	}
	if (type === OFS_DELTA) {
		do {
			byte = bytes[at++];
			if (byte === undefined) return null;
			if (at > 24) throw malformed("a delta offset too long");
		} while (byte & 0x80);
	} else if (type === REF_DELTA) {
		at += 20;
		if (bytes.byteLength < at) return null;
	}
	return { type, size, length: at };
}

/**
 * One object's zlib stream, inflated into nothing but a count. For a delta, its first bytes
 * (the base's and the result's sizes) are kept until the result size is known.
 */
class ObjectBody {
	private readonly inflater = new Inflate();
	private inflated = 0;
	private deltaHead: number[] | null;
	private resultSize: number | null = null;

	constructor(
		private readonly declared: number,
		private readonly onDeltaResult: ((size: number) => void) | null,
		tally: PackTally,
	) {
		this.deltaHead = onDeltaResult ? [] : null;
		this.inflater.onData = (chunk) => {
			this.inflated += chunk.byteLength;
			tally.inflatedBytes += chunk.byteLength;
			if (this.inflated > this.declared) throw malformed("an object larger than it declares");
			if (this.deltaHead && this.resultSize === null) this.readDeltaHead(chunk);
		};
	}

	/** Feeds compressed bytes: the bytes past this object's end once it ended, else null. */
	feed(bytes: Uint8Array): Uint8Array | null {
		this.inflater.push(bytes, false);
		if (this.inflater.err) throw malformed("bad compressed data");
		if (!this.inflater.ended) return null;
		return bytes.subarray(bytes.byteLength - this.inflater.strm.avail_in);
	}

	finish(): void {
		if (this.inflated !== this.declared) throw malformed("an object smaller than it declares");
		if (this.deltaHead && this.resultSize === null) throw malformed("a delta without its sizes");
	}

	private readDeltaHead(chunk: Uint8Array): void {
		const head = this.deltaHead as number[];
		for (const byte of chunk.subarray(0, 20 - head.length)) head.push(byte);
		// Two little-endian base-128 numbers: the base's size, then the result's.
		let at = 0;
		const sizes: number[] = [];
		while (sizes.length < 2) {
			let value = 0;
			let scale = 1;
			let byte: number | undefined;
			do {
				byte = head[at++];
				if (byte === undefined) {
					if (head.length >= 20) throw malformed("a delta size too long");
					return;
				}
				value += (byte & 0x7f) * scale;
				scale *= 128;
			} while (byte & 0x80);
			sizes.push(value);
		}
		this.resultSize = sizes[1] ?? 0;
		this.onDeltaResult?.(this.resultSize);
	}
}
