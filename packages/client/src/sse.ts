/** Server-Sent Events read over fetch (agent chat, the meeting stream): one frame per event. */

export interface SseFrame<T> {
	/** The `id:` that `Last-Event-ID` resumes after; undefined when the event had none. */
	id: string | undefined;
	/** The `event:` name; "message" when the event had none. */
	event: string;
	data: T;
}

/** Parses `response.body` as it arrives; comments (`: keepalive`) are skipped. Stops at the end of the stream. */
export async function* readSse<T>(response: Response): AsyncGenerator<SseFrame<T>> {
	if (!response.body) return;
	const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
	let buffer = "";
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			buffer += value;
			for (let end = blankLine(buffer); end; end = blankLine(buffer)) {
				const block = buffer.slice(0, end.index);
				buffer = buffer.slice(end.index + end.length);
				const frame = parseBlock<T>(block);
				if (frame) yield frame;
			}
		}
		const last = parseBlock<T>(buffer);
		if (last) yield last;
	} finally {
		// Leaving the loop early (break, return) must end the request too.
		await reader.cancel().catch(() => undefined);
	}
}

function blankLine(buffer: string): { index: number; length: number } | undefined {
	const match = /\r?\n\r?\n/.exec(buffer);
	return match ? { index: match.index, length: match[0].length } : undefined;
}

function parseBlock<T>(block: string): SseFrame<T> | undefined {
	let id: string | undefined;
	let event = "message";
	const data: string[] = [];
	for (const line of block.split(/\r?\n/)) {
		if (line === "" || line.startsWith(":")) continue;
		const colon = line.indexOf(":");
		const field = colon < 0 ? line : line.slice(0, colon);
		const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
		if (field === "id") id = value;
		else if (field === "event") event = value;
		else if (field === "data") data.push(value);
	}
	if (data.length === 0) return undefined;
	return { id, event, data: JSON.parse(data.join("\n")) as T };
}
