// `npm run bench -- density`: how many bots one host holds. For each N (DENSITY_BOTS, default
// 1,5,10,20) it starts N real bots at once on one bot host (bot-host/bench/density-host.ts: the
// real host, pull loop and claims, with no capacity gate), each in its own sandbox meeting where
// two participants speak captioned lines at a steady rate, lets them settle, then over a window
// (DENSITY_WINDOW_S, default 60) measures: CPU of the bots' Chromium trees and of the host
// process (% of one core), PSS per bot, caption shown → segment at a /ws subscriber (p50, p95),
// and captions lost (lines the meeting showed whole that had not reached /ws 30 s later).
// DENSITY_BROWSER: `headed` (default, the bots' launch), `headless` (the launch bots had before
// issue 31, for its figures only) or `both` (headless first, then headed, and the two side by side).
import WebSocket from "ws";
import { groupPssMb, groupSize, startCpuWindow } from "../../bot-host/bench/density.ts";
import { processTree } from "../../bot-host/process-tree.ts";
import { meetCode, sleep, until } from "./bots.mjs";

/** The host's last log lines, shown when a step goes wrong. */
const hostLog = [];

/** How the density host is started: its own entry, every ticket up to the most bots at once, bots launched as `mode` says. */
export const DENSITY_HOST = (slots, mode = "headed") => ({
	entry: "bot-host/bench/density-host.ts",
	env: { BOT_HOST_SLOTS: String(slots), BENCH_BROWSER: mode },
	onLine: (line) => {
		hostLog.push(line);
		if (hostLog.length > 200) hostLog.shift();
	},
});

export function densityCounts() {
	const raw = process.env.DENSITY_BOTS || "1,5,10,20";
	const counts = raw.split(",").map(Number);
	if (counts.some((n) => !Number.isSafeInteger(n) || n < 1 || n > 50))
		throw new Error(`DENSITY_BOTS must list bot counts from 1 to 50, not ${raw}`);
	return counts;
}

/** The launches to measure, in order: `headed`, `headless` or both. */
export function densityModes() {
	const raw = process.env.DENSITY_BROWSER || "headed";
	if (raw === "both") return ["headless", "headed"];
	if (raw === "headed" || raw === "headless") return [raw];
	throw new Error(`DENSITY_BROWSER must be headed, headless or both, not ${raw}`);
}

const windowSeconds = () => Number(process.env.DENSITY_WINDOW_S || 60);
/** After the bots are in: their start-up (page load, WAV decoding) is not the steady cost. */
const SETTLE_MS = 10_000;
/**
 * After the window: how long a caption shown in it may take to reach /ws and still count as
 * delivered (late, and in the latency figures) rather than lost. Generous: on a saturated
 * machine the local gateway falls seconds behind.
 */
const GRACE_MS = 30_000;

const topics = ["the budget", "hiring", "the roadmap", "the launch", "the migration", "support tickets", "the audit", "pricing"];
/** Enough distinct lines for the slowest start-up plus the window: about one caption line every 3 s. */
function speakers() {
	const line = (who, i) => `${who} point ${i + 1} is about ${topics[i % topics.length]} this week.`;
	return ["Ann", "Bo"].map((name) => ({ name, lines: Array.from({ length: 60 }, (_, i) => line(name, i)) }));
}

const percentile = (values, p) => {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
};

/** A /ws subscriber of one meeting: every transcript segment with when it arrived, and the statuses seen. */
async function subscribe(botBase, key, code) {
	const ws = new WebSocket(`${botBase.replace(/^http/, "ws")}/ws`, { headers: { "X-API-Key": key } });
	const statuses = new Set();
	const segments = [];
	const feed = { ws, statuses, segments, ended: null };
	ws.on("message", (data) => {
		const m = JSON.parse(String(data));
		if (m.type === "meeting.status") statuses.add(m.payload.status);
		// Why a bot ended, to say so when it ends before the window.
		if (m.type === "meeting.status" && ENDED.includes(m.payload.status)) feed.ended = { status: m.payload.status, ...m.payload.data };
		if (m.type === "transcript")
			for (const s of [...m.confirmed, ...m.pending])
				segments.push({ id: s.segment_id, speaker: s.speaker, text: s.text.trim(), at: Date.now() });
	});
	await new Promise((resolve, reject) => {
		ws.once("open", resolve);
		ws.once("error", reject);
	});
	ws.send(JSON.stringify({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] }));
	return feed;
}

async function call(base, key, method, path, body) {
	const res = await fetch(`${base}${path}`, {
		method,
		headers: { "X-API-Key": key, ...(body ? { "content-type": "application/json" } : {}) },
		body: body ? JSON.stringify(body) : undefined,
		signal: AbortSignal.timeout(60_000),
	});
	if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
	return res.status === 204 ? null : res.json();
}

const ENDED = ["failed", "completed"];

/**
 * A line's caption grows word by word in one place, so its states repeat across lines ("Ann",
 * "Ann point"…): each state is matched within its own line, by the segment id the bot gave that
 * line (the segment that carried the line's whole text), never to an earlier line's segment.
 */
function captionLines(shown) {
	const lines = [];
	const open = new Map();
	for (const caption of shown) {
		const state = { text: caption.text.trim(), at: caption.at };
		const line = open.get(caption.speaker);
		if (line && state.text.startsWith(line.states.at(-1).text)) line.states.push(state);
		else {
			const next = { speaker: caption.speaker, states: [state] };
			lines.push(next);
			open.set(caption.speaker, next);
		}
	}
	return lines;
}

/** Caption latency and losses of one meeting, over captions shown inside [from, to]. */
function captionFigures(observed, feed, from, to) {
	const latencies = [];
	const lines = { shown: 0, delivered: 0 };
	const arrivedBy = to + GRACE_MS;
	const arrived = feed.segments.filter((s) => s.at <= arrivedBy);
	const whole = new Set(speakers().flatMap((p) => p.lines.map((l) => `${p.name}\u0000${l}`)));
	for (const line of captionLines(observed.captions_shown ?? [])) {
		const last = line.states.at(-1);
		const carrier = arrived.find((s) => s.speaker === line.speaker && s.text === last.text);
		// A line shown whole in the window and never delivered is lost; states the bot did not
		// read before the next word replaced them are not (the next one carries their words).
		if (whole.has(`${line.speaker}\u0000${last.text}`) && last.at >= from && last.at <= to) {
			lines.shown++;
			if (carrier) lines.delivered++;
		}
		if (!carrier) continue;
		for (const state of line.states) {
			if (state.at < from || state.at > to) continue;
			const first = arrived.find((s) => s.id === carrier.id && s.text === state.text);
			if (first) latencies.push(first.at - state.at);
		}
	}
	return { latencies, lines };
}

/**
 * One step: `n` bots at once, launched as `mode` says. `botOptions`: more of the POST /bots body
 * (the recording bench's `recording_enabled` and `recording_config`). The figures name the
 * step's meetings (`meeting_ids`), whose bots have all left when it returns.
 */
export async function densityStep(ctx, n, mode, { botOptions = {} } = {}) {
	const { botBase, key, sandboxUrl, pids } = ctx;
	const hostPid = pids.hosts[0];
	const codes = Array.from({ length: n }, meetCode);
	for (const code of codes) {
		const res = await fetch(`${sandboxUrl}/meetings/${code}`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			// The former launch is measured for what it costs: Meet's automation check would refuse it.
			body: JSON.stringify({
				direct_join: true,
				participants: speakers(),
				speech_start_ms: 1000,
				speech_gap_ms: 700,
				bot_detection: mode === "headed",
			}),
		});
		if (!res.ok) throw new Error(`sandbox scenario ${code}: ${res.status}`);
	}
	const startedAt = performance.now();
	const meetings = await Promise.all(
		codes.map((code) => call(botBase, key, "POST", "/bots", { platform: "google_meet", native_meeting_id: code, ...botOptions })),
	);
	const feeds = await Promise.all(codes.map((code) => subscribe(botBase, key, code)));
	try {
		// Every bot in its call, or out for good: one that failed to start is reported, not waited for.
		const settled = (f) => f.statuses.has("active") || ENDED.some((s) => f.statuses.has(s));
		await until(`${n} bots active`, () => (feeds.every(settled) ? true : undefined), 60_000 + n * 15_000).catch(() => {
			const waiting = feeds.map((f, i) => `${codes[i]}: ${[...f.statuses].join(" → ") || "no status yet"}`);
			console.log(`  not every bot reached active:\n    ${waiting.join("\n    ")}\n  host log:\n    ${hostLog.slice(-40).join("\n    ")}`);
		});
		const allActiveS = (performance.now() - startedAt) / 1000;
		for (const [i, f] of feeds.entries())
			if (f.ended)
				console.log(
					`  ${codes[i]} ended before the window: ${f.ended.status} (${f.ended.completion_reason ?? "-"}): ${f.ended.reason ?? ""}`,
				);
		await sleep(SETTLE_MS);
		const groups = [
			{ name: "bots", root: hostPid, descendantsOnly: true },
			// Their displays, counted in `bots` too: what headed costs beyond the browser.
			{ name: "displays", root: hostPid, descendantsOnly: true, command: "Xvfb" },
			// Their recorders (bot-host/bot/recording), counted in `bots` too.
			{ name: "encoders", root: hostPid, descendantsOnly: true, command: "ffmpeg" },
			{ name: "host", root: hostPid, rootOnly: true },
			{ name: "sandbox", root: pids.sandbox },
			{ name: "gateway", root: pids.gateway },
		];
		const inCall = () => feeds.filter((f) => f.statuses.has("active") && !ENDED.some((s) => f.statuses.has(s))).length;
		const running = inCall();
		const from = Date.now();
		const cpu = startCpuWindow(groups);
		await sleep(windowSeconds() * 1000);
		const window = cpu.end();
		const to = Date.now();
		const botsPss = groupPssMb(groups[0]);
		const displaysPss = groupPssMb(groups[1]);
		const encodersPss = groupPssMb(groups[2]);
		const hostPss = groupPssMb(groups[3]);
		const chromiums = groupSize(groups[0]);
		await sleep(GRACE_MS);
		const latencies = [];
		const lines = { shown: 0, delivered: 0 };
		for (const [i, code] of codes.entries()) {
			const observed = await (await fetch(`${sandboxUrl}/meetings/${code}/observed`)).json();
			const figures = captionFigures(observed, feeds[i], from, to);
			latencies.push(...figures.latencies);
			lines.shown += figures.lines.shown;
			lines.delivered += figures.lines.delivered;
		}
		const perBot = (value) => Math.round((value / Math.max(1, running)) * 10) / 10;
		return {
			browser: mode,
			bots: n,
			/** Bots in their call when the window opened (the per-bot figures divide by this) and after it. */
			bots_in_call: running,
			bots_in_call_at_end: inCall(),
			all_active_s: Math.round(allActiveS * 10) / 10,
			window_s: window.seconds,
			cpu_per_bot_pct: perBot(window.percent.bots),
			cpu_bots_pct: window.percent.bots,
			cpu_display_per_bot_pct: perBot(window.percent.displays),
			cpu_encoder_per_bot_pct: perBot(window.percent.encoders),
			cpu_host_pct: window.percent.host,
			cpu_sandbox_pct: window.percent.sandbox,
			cpu_gateway_pct: window.percent.gateway,
			pss_per_bot_mb: perBot(botsPss),
			pss_display_per_bot_mb: perBot(displaysPss),
			pss_encoder_per_bot_mb: perBot(encodersPss),
			pss_host_mb: hostPss,
			chromium_processes_per_bot: Math.round((chromiums / Math.max(1, running)) * 10) / 10,
			caption_to_ws_ms: { samples: latencies.length, p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
			caption_lines: { shown: lines.shown, delivered: lines.delivered, lost: lines.shown - lines.delivered },
			machine: window.machine,
			meeting_ids: meetings.map((m) => m.id),
		};
	} finally {
		// A stop the gateway does not answer must not hide what went wrong before it.
		const stops = await Promise.allSettled(codes.map((code) => call(botBase, key, "DELETE", `/bots/google_meet/${code}`)));
		for (const stop of stops) if (stop.status === "rejected") console.log(`  stopping a bot: ${stop.reason}`);
		for (const f of feeds) f.ws.close();
		// The next step starts on a host without a Chromium.
		const deadline = Date.now() + 60_000;
		while (groupSize({ root: hostPid, descendantsOnly: true }) > 0 && Date.now() < deadline) await sleep(500);
		// A starved gateway may never pass the stops on: the bench ends its own Chromiums itself
		// rather than leave them running into the next step or past the bench.
		const left = processTree(hostPid).slice(1);
		if (left.length > 0) {
			console.log(`  (${left.length} Chromium processes still running 60 s after their bots were stopped: killed)`);
			for (const pid of left) {
				try {
					process.kill(pid, "SIGKILL");
				} catch {
					// Already gone.
				}
			}
		}
	}
}

export async function benchDensity(ctx, mode = "headed") {
	const counts = densityCounts();
	console.log(`\n## Density: N real ${mode} bots on one host at once (sandbox meetings, ${windowSeconds()} s window per N)`);
	const steps = [];
	for (const n of counts) {
		const step = await densityStep(ctx, n, mode);
		steps.push(step);
		// Each step's figures as soon as it ends: a later step that saturates the machine may never finish.
		if (counts.length > 1) console.log(JSON.stringify(step));
		const { caption_to_ws_ms: lag, caption_lines: lines, machine } = step;
		console.log(
			`${String(n).padStart(3)} ${mode} bots${step.bots_in_call < n ? ` (${step.bots_in_call} in call)` : ""}: CPU ${step.cpu_per_bot_pct.toFixed(1)}% of a core per bot (Xvfb ${step.cpu_display_per_bot_pct}%, host process ${step.cpu_host_pct}%)   ` +
				`PSS ${step.pss_per_bot_mb.toFixed(0)} MB per bot (Xvfb ${step.pss_display_per_bot_mb} MB)   caption → /ws p50 ${lag.p50 ?? "-"} ms p95 ${lag.p95 ?? "-"} ms (${lag.samples})   ` +
				`lines lost ${lines.lost} of ${lines.shown}   [machine ${machine.busy_pct}% busy of ${machine.cores} cores, others ${machine.others_core_pct}% of a core, CPU PSI ${machine.cpu_pressure_avg60}%]`,
		);
	}
	console.log(JSON.stringify({ density: steps }, null, 2));
	return steps;
}

/** Headed beside the former headless launch, per N: what a visible browser costs each bot. */
export function printDensityComparison(byMode) {
	const { headless = [], headed = [] } = byMode;
	if (headless.length === 0 || headed.length === 0) return;
	console.log("\n## Density: headed bots against the former headless launch (per bot)");
	for (const now of headed) {
		const before = headless.find((s) => s.bots === now.bots);
		if (!before) continue;
		const change = (a, b) => `${b >= a ? "+" : ""}${Math.round(((b - a) / Math.max(a, 0.1)) * 100)}%`;
		console.log(
			`${String(now.bots).padStart(3)} bots: CPU ${before.cpu_per_bot_pct}% → ${now.cpu_per_bot_pct}% of a core (${change(before.cpu_per_bot_pct, now.cpu_per_bot_pct)}; Xvfb ${now.cpu_display_per_bot_pct}%)   ` +
				`PSS ${before.pss_per_bot_mb} → ${now.pss_per_bot_mb} MB (${change(before.pss_per_bot_mb, now.pss_per_bot_mb)}; Xvfb ${now.pss_display_per_bot_mb} MB)   ` +
				`caption → /ws p95 ${before.caption_to_ws_ms.p95 ?? "-"} → ${now.caption_to_ws_ms.p95 ?? "-"} ms   lines lost ${before.caption_lines.lost} → ${now.caption_lines.lost}`,
		);
	}
}
