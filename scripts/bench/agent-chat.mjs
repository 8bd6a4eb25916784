import { startModelServer } from "../../test/receiver/model-server.ts";

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Time a chat turn's first token takes through us: from the moment the local model server
 * writes it to the moment its `message-delta` frame reaches the client over POST
 * /agent/api/chat (gateway, the user's agent object, its event log, SSE through wrangler
 * dev). Both ends are in this process, so one clock measures them. The model waits 30 ms
 * before its first token, as a provider does, so the turn's setup is not counted as ours.
 */
export async function benchAgentChat({ base, key, turns = 200 }) {
	const firstTextAt = new Map();
	const model = await startModelServer({ onFirstText: (prompt) => firstTextAt.set(prompt, performance.now()) });
	const headers = { "X-API-Key": key, "content-type": "application/json" };
	try {
		const put = await fetch(`${base}/user/models`, {
			method: "PUT",
			headers,
			body: JSON.stringify({ base_url: `${model.url}/v1`, model: "bench-model", api_key: "bench-model-key" }),
		});
		if (!put.ok) throw new Error(`PUT /user/models: ${put.status} ${await put.text()}`);
		const added = [];
		const whole = [];
		for (let i = 0; i < turns; i++) {
			const prompt = `bench turn ${i} ${crypto.randomUUID()}`;
			await fetch(`${model.url}/__script`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ marker: prompt, steps: [{ text: ["Hello", " from", " the", " model."], delay_ms: 30 }] }),
			});
			const started = performance.now();
			const res = await fetch(`${base}/agent/api/chat`, {
				method: "POST",
				headers,
				body: JSON.stringify({ prompt, session: `bench-${i}` }),
			});
			const firstDelta = await readUntilFirstDelta(res);
			const sent = firstTextAt.get(prompt);
			// The first turn warms the object and the model connection; it is not counted.
			if (i > 0 && sent !== undefined && firstDelta !== undefined) {
				added.push(firstDelta.at - sent);
				whole.push(firstDelta.done - started);
			}
		}
		added.sort((a, b) => a - b);
		whole.sort((a, b) => a - b);
		console.log(`\n## Agent chat (POST /agent/api/chat, a local streaming model, ${added.length} turns)`);
		console.log(
			`model's first token → first message-delta at the client: p50 ${percentile(added, 50).toFixed(1)} ms, p99 ${percentile(added, 99).toFixed(1)} ms (goal: under 50 ms added)`,
		);
		console.log(
			`whole turn (request → turn-complete): p50 ${percentile(whole, 50).toFixed(0)} ms, p99 ${percentile(whole, 99).toFixed(0)} ms`,
		);
	} finally {
		await model.close();
	}
}

/** Reads the SSE body; notes when the first message-delta arrived, and when the turn completed. */
async function readUntilFirstDelta(res) {
	if (!res.ok || !res.body) throw new Error(`POST /agent/api/chat: ${res.status} ${await res.text()}`);
	const reader = res.body.getReader();
	const decoder = new TextDecoder();
	let buffer = "";
	let at;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		buffer += decoder.decode(value, { stream: true });
		let end = buffer.indexOf("\n\n");
		while (end >= 0) {
			const event = buffer.slice(0, end);
			buffer = buffer.slice(end + 2);
			const data = event.split("\n").find((line) => line.startsWith("data: "));
			if (data) {
				const frame = JSON.parse(data.slice(6));
				if (frame.type === "message-delta" && at === undefined) at = performance.now();
				if (frame.type === "turn-complete") {
					await reader.cancel();
					return at === undefined ? undefined : { at, done: performance.now() };
				}
			}
			end = buffer.indexOf("\n\n");
		}
	}
	return undefined;
}
