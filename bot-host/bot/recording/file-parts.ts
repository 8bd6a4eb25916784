/**
 * One recording file as parts (docs/bot-channel.md#recording-parts): part n is the file's bytes
 * after parts 1..n-1. Each tick ships what the encoder wrote since the last part; each shipped
 * part's byte range and hash are kept, so when the encoder has finished the file (it rewrites
 * the header: Duration, SeekHead) the parts whose bytes changed are sent again under their number.
 */
import { createHash } from "node:crypto";
import { open, stat } from "node:fs/promises";
import { RECORDING_PART_MAX_BYTES, RECORDING_PART_SECONDS_HEADER, type RecordingPartType } from "../../../src/bot-channel/protocol.ts";
import { type PartRequest, sendWithRetries } from "./part-http.ts";

interface ShippedPart {
	n: number;
	start: number;
	end: number;
	hash: string;
	mediaSeconds: number;
	/** Its last PUT was answered 2xx. */
	delivered: boolean;
}

export interface FilePartsOptions {
	type: RecordingPartType;
	path: string;
	/** `<recording_parts_url>` */
	url: string;
	token: string;
	log: (line: string) => void;
	send?: (request: PartRequest) => Promise<{ status: number } | { error: string }>;
}

const hashOf = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

export class FileParts {
	readonly type: RecordingPartType;
	readonly path: string;
	private readonly parts: ShippedPart[] = [];
	private readonly o: FilePartsOptions;
	private readonly send: NonNullable<FilePartsOptions["send"]>;

	constructor(o: FilePartsOptions) {
		this.o = o;
		this.type = o.type;
		this.path = o.path;
		this.send = o.send ?? ((request) => sendWithRetries(request));
	}

	/** Parts numbered so far (1..count). */
	get count(): number {
		return this.parts.length;
	}

	/** Whether every part's last PUT was taken. */
	get complete(): boolean {
		return this.parts.every((p) => p.delivered);
	}

	private get shippedEnd(): number {
		return this.parts.at(-1)?.end ?? 0;
	}

	/** The file's size on disk now (0 before the encoder created it). */
	async size(): Promise<number> {
		return (await stat(this.path).catch(() => null))?.size ?? 0;
	}

	/** Ship the bytes written since the last part as the next part(s); `mediaSeconds`: what the file covers through them. */
	async shipNew(mediaSeconds: number): Promise<void> {
		const size = await this.size();
		let start = this.shippedEnd;
		while (start < size) {
			const end = Math.min(size, start + RECORDING_PART_MAX_BYTES);
			const bytes = await this.read(start, end);
			const part: ShippedPart = { n: this.parts.length + 1, start, end, hash: hashOf(bytes), mediaSeconds, delivered: false };
			this.parts.push(part);
			part.delivered = await this.put(part, bytes);
			start = end;
		}
	}

	/**
	 * The file is final: every part whose bytes changed on disk (or was never taken) is sent
	 * again, then what was written since the last part. `mediaSeconds`: the file's length.
	 */
	async shipFinal(mediaSeconds: number): Promise<void> {
		for (const part of this.parts) {
			const bytes = await this.read(part.start, part.end);
			const hash = hashOf(bytes);
			if (hash === part.hash && part.delivered) continue;
			part.hash = hash;
			part.delivered = await this.put(part, bytes);
		}
		await this.shipNew(mediaSeconds);
	}

	/** Every part sent again (the Worker answered a completion with 409: it misses one). */
	async reshipAll(): Promise<void> {
		for (const part of this.parts) part.delivered = await this.put(part, await this.read(part.start, part.end));
	}

	private async read(start: number, end: number): Promise<Buffer> {
		const file = await open(this.path, "r");
		try {
			const bytes = Buffer.alloc(end - start);
			let got = 0;
			while (got < bytes.length) {
				const { bytesRead } = await file.read(bytes, got, bytes.length - got, start + got);
				if (bytesRead === 0) break;
				got += bytesRead;
			}
			return bytes.subarray(0, got);
		} finally {
			await file.close();
		}
	}

	private async put(part: ShippedPart, bytes: Buffer): Promise<boolean> {
		const answer = await this.send({
			method: "PUT",
			url: `${this.o.url}/${this.type}/${part.n}`,
			headers: {
				authorization: `Bearer ${this.o.token}`,
				"content-type": this.type === "video" ? "video/webm" : "audio/webm",
				[RECORDING_PART_SECONDS_HEADER]: part.mediaSeconds.toFixed(3),
			},
			body: bytes,
		});
		if ("status" in answer && answer.status >= 200 && answer.status < 300) return true;
		this.o.log(`recording ${this.type} part ${part.n}: ${"status" in answer ? `answered ${answer.status}` : answer.error}`);
		return false;
	}
}
