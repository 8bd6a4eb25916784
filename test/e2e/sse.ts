/** Reading Server-Sent Events as a browser's EventSource would: one event per `id:`/`data:` block. */

export interface Frame {
	id: number;
	type: string;
	[field: string]: unknown;
}

/** Reads SSE events one at a time; `next()` is null once the stream has ended. */
export function frames(res: Response) {
	if (!res.body) throw new Error("no body");
	const reader = res.body.getReader();
	const decoder = new TextDecoder();
	let buffer = "";
	return {
		async next(): Promise<Frame | null> {
			for (;;) {
				const end = buffer.indexOf("\n\n");
				if (end >= 0) {
					const event = buffer.slice(0, end);
					buffer = buffer.slice(end + 2);
					const data = event.split("\n").find((l) => l.startsWith("data: "));
					const id = event.split("\n").find((l) => l.startsWith("id: "));
					if (!data) continue;
					return { ...JSON.parse(data.slice(6)), id: Number(id?.slice(4)) };
				}
				const { done, value } = await reader.read();
				if (done) return null;
				buffer += decoder.decode(value, { stream: true });
			}
		},
		cancel: () => reader.cancel().catch(() => undefined),
	};
}

/** Reads a stream in the background into `events` (pings left out), until it ends or `stop()`. */
export function collect(res: Response) {
	const stream = frames(res);
	const events: Frame[] = [];
	const state = { ended: false, error: undefined as unknown };
	const done = (async () => {
		try {
			for (let f = await stream.next(); f; f = await stream.next()) if (f.type !== "ping") events.push(f);
		} catch (err) {
			state.error = err;
		} finally {
			state.ended = true;
		}
	})();
	return {
		events,
		state,
		async stop() {
			await stream.cancel();
			await done;
		},
	};
}
