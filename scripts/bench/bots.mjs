import { readdirSync, readFileSync } from "node:fs";
import WebSocket from "ws";
import { follow } from "./meeting-stream.mjs";

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A fresh sandbox meeting code, Meet-shaped. */
export function meetCode() {
	const l = Array.from({ length: 10 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join("");
	return `${l.slice(0, 3)}-${l.slice(3, 7)}-${l.slice(7)}`;
}

/** Opens a sandbox meeting: an id the sandbox was not told about is no meeting, and the bot would fail. */
async function scenario(sandboxUrl, id, body) {
	const res = await fetch(`${sandboxUrl}/meetings/${id}`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify(body),
	});
	if (!res.ok) throw new Error(`sandbox scenario for ${id}: ${res.status} ${await res.text()}`);
}

async function post(base, key, path, body) {
	const res = await fetch(`${base}${path}`, {
		method: "POST",
		headers: { "X-API-Key": key, "content-type": "application/json" },
		body: JSON.stringify(body),
	});
	return res.json();
}

/** Opens /ws subscribed to one meeting; resolves each status the moment it arrives. */
async function watch(base, key, code) {
	const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws`, { headers: { "X-API-Key": key } });
	const seen = new Map();
	const segments = [];
	ws.on("message", (d) => {
		const m = JSON.parse(String(d));
		if (m.type === "meeting.status") seen.set(m.payload.status, performance.now());
		if (m.type === "transcript") for (const s of [...m.confirmed, ...m.pending]) segments.push({ ...s, at: Date.now() });
	});
	await new Promise((resolve) => ws.once("open", resolve));
	ws.send(JSON.stringify({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] }));
	return { ws, seen, segments };
}

/** Follows the meeting's SSE stream (GET /agent/meeting/stream); keeps each transcript event with its arrival time. */
async function streamTranscript(base, key, code) {
	const segments = [];
	const res = await fetch(`${base}/agent/meeting/stream?meeting_id=${code}&session_uid=${code}`, { headers: { "X-API-Key": key } });
	const { close } = follow(res, ({ frame }) => {
		if (frame.type === "transcript") segments.push({ ...frame, at: Date.now() });
	});
	return { segments, close };
}

/** Polls `check` until it gives a value; fails naming `what` after `ms`. */
export async function until(what, check, ms = 60_000) {
	const deadline = Date.now() + ms;
	while (Date.now() < deadline) {
		const v = await check();
		if (v !== undefined) return v;
		await sleep(20);
	}
	throw new Error(`timed out: ${what}`);
}

/** Proportional set size (shared pages split fairly) of every Chromium process of these bots. */
function chromiumPssBytes() {
	let total = 0;
	for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
		try {
			const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1");
			if (!cmd.includes("bot-profile-")) continue;
			const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "latin1");
			total += Number(rollup.match(/^Pss:\s+(\d+) kB/m)?.[1] ?? 0) * 1024;
		} catch {
			// the process ended while we looked
		}
	}
	return total;
}

/** Spawn → active, caption on screen → segment at a /ws subscriber and on the meeting stream, and memory per bot. */
export async function benchBots({ botBase, key, sandboxUrl }) {
	console.log("\n## Real bots in the platform sandbox (Chromium, through wrangler dev)");
	const toActive = [];
	const captionLag = [];
	const captionToStream = [];
	let captionsShown = 0;
	for (let run = 0; run < 6; run++) {
		const code = meetCode();
		await scenario(sandboxUrl, code, {
			direct_join: true,
			participants: [{ name: "Speaker", lines: ["The quarterly numbers look strong.", "We will hire two engineers next month."] }],
			speech_start_ms: 300,
			speech_gap_ms: 300,
		});
		const t0 = performance.now();
		const meeting = await post(botBase, key, "/bots", { platform: "google_meet", native_meeting_id: code });
		const feed = await watch(botBase, key, code);
		const stream = await streamTranscript(botBase, key, code);
		await until("active", () => (feed.seen.has("active") ? true : undefined));
		toActive.push(feed.seen.get("active") - t0);
		await until("two confirmed segments", () => (feed.segments.filter((s) => s.completed).length >= 2 ? true : undefined));
		const observed = await (await fetch(`${sandboxUrl}/meetings/${code}/observed`)).json();
		// Each caption text the meeting showed, to the first segment carrying that text at the subscriber.
		for (const caption of observed.captions_shown ?? []) {
			captionsShown += 1;
			const arrived = feed.segments.find((s) => s.speaker === caption.speaker && s.text.trim() === caption.text.trim());
			if (arrived) captionLag.push(arrived.at - caption.at);
			const streamed = stream.segments.find((s) => s.speaker === caption.speaker && s.text.trim() === caption.text.trim());
			if (streamed) captionToStream.push(streamed.at - caption.at);
		}
		stream.close();
		await fetch(`${botBase}/bots/google_meet/${code}`, { method: "DELETE", headers: { "X-API-Key": key } });
		feed.ws.close();
		await sleep(500);
		void meeting;
	}
	toActive.sort((a, b) => a - b);
	console.log(
		`spawn → active:            p50 ${(percentile(toActive, 50) / 1000).toFixed(2)} s   p95 ${(percentile(toActive, 95) / 1000).toFixed(2)} s   (${toActive.length} bots; goal p50 < 5 s)`,
	);
	if (captionLag.length) {
		captionLag.sort((a, b) => a - b);
		console.log(
			`caption shown → /ws:      p50 ${percentile(captionLag, 50).toFixed(0)} ms   p95 ${percentile(captionLag, 95).toFixed(0)} ms   (${captionLag.length} of ${captionsShown} caption texts shown reached /ws; goal p95 ≤ 100 ms)`,
		);
	} else {
		console.log("caption shown → /ws:       not measured (the sandbox does not report when captions were shown)");
	}
	if (captionToStream.length) {
		captionToStream.sort((a, b) => a - b);
		console.log(
			`caption shown → SSE:      p50 ${percentile(captionToStream, 50).toFixed(0)} ms   p95 ${percentile(captionToStream, 95).toFixed(0)} ms   (${captionToStream.length} captions on GET /agent/meeting/stream)`,
		);
	}

	for (const count of [1, 5]) {
		const codes = Array.from({ length: count }, meetCode);
		for (const code of codes) {
			await scenario(sandboxUrl, code, { direct_join: true, participants: [{ name: "Speaker", lines: ["Memory check in progress."] }] });
			await post(botBase, key, "/bots", { platform: "google_meet", native_meeting_id: code });
		}
		const feeds = await Promise.all(codes.map((c) => watch(botBase, key, c)));
		await until(`${count} active`, () => (feeds.every((f) => f.seen.has("active")) ? true : undefined), 90_000);
		await sleep(3000);
		const pss = chromiumPssBytes();
		console.log(
			`memory with ${count} bot(s):     ${(pss / count / 1024 / 1024).toFixed(0)} MB per bot (Chromium PSS ${(pss / 1024 / 1024).toFixed(0)} MB in all; goal ≤ 300 MB per bot)`,
		);
		for (const code of codes) await fetch(`${botBase}/bots/google_meet/${code}`, { method: "DELETE", headers: { "X-API-Key": key } });
		for (const f of feeds) f.ws.close();
		await sleep(3000);
	}
}
