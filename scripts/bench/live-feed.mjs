import { openSocket, sendSimulatedBot } from "./simulated-bot.mjs";

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function measure({ base, key, recorder, subscribers, segments, code }) {
	const bot = await sendSimulatedBot({ base, key, recorder, code });

	const latencies = [];
	const pending = new Map();
	const sockets = [];
	const wsBase = base.replace(/^http/, "ws");
	for (let i = 0; i < subscribers; i++) {
		const ws = await openSocket(`${wsBase}/ws`, { "X-API-Key": key });
		ws.on("message", (d) => {
			const m = JSON.parse(String(d));
			if (m.type !== "transcript") return;
			const sentAt = pending.get(m.confirmed[0]?.segment_id);
			if (sentAt === undefined) return;
			latencies.push(performance.now() - sentAt.at);
			sentAt.left -= 1;
			if (sentAt.left === 0) sentAt.done();
		});
		await new Promise((resolve) => {
			ws.once("message", resolve);
			ws.send(JSON.stringify({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] }));
		});
		sockets.push(ws);
	}
	for (let i = 0; i < segments; i++) {
		const id = `bench-${i}`;
		await new Promise((done) => {
			pending.set(id, { at: performance.now(), left: subscribers, done });
			// Timed to the subscribers, not to the ack (which waits for D1).
			void bot.say(id, i);
		});
	}
	for (const ws of sockets) ws.close();
	bot.ws.close();
	await fetch(`${base}/bots/google_meet/${code}`, { method: "DELETE", headers: { "X-API-Key": key } });
	latencies.sort((a, b) => a - b);
	return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
}

/** Segment sent on the bot channel → arrival at /ws subscribers, with 1 and 500 subscribers. */
export async function benchLiveFeed({ base, key, recorder }) {
	console.log("\n## Live transcript: bot channel segment → /ws subscriber (through wrangler dev)");
	for (const [subscribers, segments, code] of [
		[1, 300, "ben-chon-eaa"],
		[500, 60, "ben-chfi-vee"],
	]) {
		const r = await measure({ base, key, recorder, subscribers, segments, code });
		console.log(
			`${String(subscribers).padStart(4)} subscriber(s): p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms   (${r.n} deliveries; goal p99 < 50 ms at 500)`,
		);
	}
}
