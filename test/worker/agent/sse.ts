import type { AgentFrame } from "../../../src/agent/frames";

export interface SseEvent<F = AgentFrame> {
	id: number;
	frame: F;
}

/** Reads Server-Sent Events from a response body, frame by frame, as a client would. */
export class SseReader<F extends { type: string } = AgentFrame> {
	private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
	private readonly decoder = new TextDecoder();
	private buffer = "";
	private ended = false;
	/** Comment lines seen (keepalives). */
	comments = 0;

	constructor(response: Response) {
		if (!response.body) throw new Error("no body");
		this.reader = response.body.getReader();
	}

	/** The next event, or null once the stream has ended. */
	async next(): Promise<SseEvent<F> | null> {
		for (;;) {
			const end = this.buffer.indexOf("\n\n");
			if (end >= 0) {
				const block = this.buffer.slice(0, end);
				this.buffer = this.buffer.slice(end + 2);
				let id: number | null = null;
				let data = "";
				for (const line of block.split("\n")) {
					if (line.startsWith(":")) this.comments += 1;
					else if (line.startsWith("id: ")) id = Number(line.slice(4));
					else if (line.startsWith("data: ")) data += line.slice(6);
				}
				if (!data) continue;
				if (id === null) throw new Error(`frame without id: ${block}`);
				return { id, frame: JSON.parse(data) as F };
			}
			if (this.ended) return null;
			const { done, value } = await this.reader.read();
			if (done) this.ended = true;
			else this.buffer += this.decoder.decode(value, { stream: true });
		}
	}

	/** Events up to and including the first of `type` (or to the stream's end). */
	async until(type: F["type"]): Promise<SseEvent<F>[]> {
		const events: SseEvent<F>[] = [];
		for (;;) {
			const event = await this.next();
			if (!event) return events;
			events.push(event);
			if (event.frame.type === type) return events;
		}
	}

	/** Every event to the stream's end. */
	async rest(): Promise<SseEvent<F>[]> {
		const events: SseEvent<F>[] = [];
		for (let e = await this.next(); e; e = await this.next()) events.push(e);
		return events;
	}

	async cancel(): Promise<void> {
		await this.reader.cancel().catch(() => undefined);
	}
}

/** A whole stream read to its end. */
export async function readAll(response: Response): Promise<SseEvent[]> {
	const reader = new SseReader(response);
	try {
		return await reader.rest();
	} finally {
		await reader.cancel();
	}
}

/** Every event but pings, to the stream's own end: a stream left open fails the test on its timeout. */
export async function readToTheEnd<F extends { type: string }>(response: Response): Promise<SseEvent<F>[]> {
	if (response.status !== 200) throw new Error(`stream answered ${response.status}`);
	const reader = new SseReader<F>(response);
	try {
		return (await reader.rest()).filter((e) => e.frame.type !== "ping");
	} finally {
		await reader.cancel();
	}
}
