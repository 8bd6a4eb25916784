import WebSocket from "ws";
import { meetCode, sleep, until } from "./bots.mjs";

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

/**
 * One bot from `POST /bots`: when a host launched it (its claim won, from the host's own log
 * line, `launches`) and when the meeting went `active` (the /ws status event).
 */
async function placeOne({ botBase, key, sandboxUrl, launches }) {
	const code = meetCode();
	const scenario = await fetch(`${sandboxUrl}/meetings/${code}`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ direct_join: true, participants: [{ name: "Speaker", lines: ["Placement check."] }] }),
	});
	if (!scenario.ok) throw new Error(`sandbox scenario: ${scenario.status}`);
	const t0 = performance.now();
	const res = await fetch(`${botBase}/bots`, {
		method: "POST",
		headers: { "X-API-Key": key, "content-type": "application/json" },
		body: JSON.stringify({ platform: "google_meet", native_meeting_id: code }),
	});
	const meeting = await res.json();
	if (res.status !== 201) throw new Error(`POST /bots: ${res.status} ${JSON.stringify(meeting)}`);
	// Subscribed once the meeting exists; its bot takes seconds to join, so no status passes unseen.
	const ws = new WebSocket(`${botBase.replace(/^http/, "ws")}/ws`, { headers: { "X-API-Key": key } });
	let activeAt;
	ws.on("message", (d) => {
		const m = JSON.parse(String(d));
		if (m.type === "meeting.status" && m.payload.status === "active") activeAt ??= performance.now();
	});
	await new Promise((resolve) => ws.once("open", resolve));
	ws.send(JSON.stringify({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] }));
	const claimed = await until(`meeting ${meeting.id} claimed`, () => launches.get(meeting.id), 90_000);
	let lookedAt = 0;
	await until(
		`meeting ${meeting.id} active`,
		async () => {
			if (activeAt !== undefined) return activeAt;
			// Now and then the record, so a bot that failed is named rather than waited out.
			if (performance.now() - lookedAt < 1000) return undefined;
			lookedAt = performance.now();
			const m = await (await fetch(`${botBase}/meetings/${meeting.id}`, { headers: { "X-API-Key": key } })).json();
			if (m.status === "failed" || m.status === "completed")
				throw new Error(`meeting ${meeting.id} ended ${m.status}: ${m.completion_reason}`);
			return undefined;
		},
		90_000,
	);
	return {
		toClaimed: claimed.at - t0,
		toActive: activeAt - t0,
		host: claimed.host,
		stop: async () => {
			await fetch(`${botBase}/bots/google_meet/${code}`, { method: "DELETE", headers: { "X-API-Key": key } });
			await until(
				`meeting ${meeting.id} ended`,
				async () => {
					const m = await (await fetch(`${botBase}/meetings/${meeting.id}`, { headers: { "X-API-Key": key } })).json();
					return m.status === "completed" || m.status === "failed" ? true : undefined;
				},
				90_000,
			);
			ws.close();
		},
	};
}

const summary = (values) => {
	const sorted = [...values].sort((a, b) => a - b);
	return `p50 ${seconds(percentile(sorted, 50))}   max ${seconds(sorted[sorted.length - 1])}`;
};

/**
 * Placement on `hostCount` hosts pulling one queue: one bot at a time (each waits out the hosts'
 * idle back-off between pulls, 1 → 5 s), then three at once (never more than three Chromiums).
 */
export async function benchFleetPlacement(ctx) {
	const { hostCount } = ctx;
	const label = `${hostCount} host${hostCount === 1 ? "" : "s"}`;
	const single = [];
	for (let run = 0; run < 5; run++) {
		const placed = await placeOne(ctx);
		single.push(placed);
		await placed.stop();
		// Let the hosts fall back into their idle back-off, as between real requests.
		await sleep(3000 + Math.random() * 2000);
	}
	const burst = await Promise.all([placeOne(ctx), placeOne(ctx), placeOne(ctx)]);
	for (const placed of burst) await placed.stop();
	console.log(
		`${label.padEnd(8)} one at a time: POST /bots → claimed ${summary(single.map((p) => p.toClaimed))}   → active ${summary(single.map((p) => p.toActive))}   (${single.length} bots)`,
	);
	console.log(
		`${label.padEnd(8)} three at once: POST /bots → claimed ${summary(burst.map((p) => p.toClaimed))}   → active ${summary(burst.map((p) => p.toActive))}   (on ${new Set(burst.map((p) => p.host)).size} host(s))`,
	);
}
