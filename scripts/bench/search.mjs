// `npm run bench -- search`: GET /transcripts/search over 1,000 meetings of 200 segments each,
// through the gateway under `wrangler dev`. Goal: p95 under 50 ms. Then the noisy neighbour
// (security review finding 1): another account with 4 segments floods search with the costliest
// queries it may send, while the first account lists its meetings. Goal: GET /meetings p50 at
// most twice what it is alone.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyMigrations } from "../local-stack.mjs";
import { seed, seededGateway, sqlText } from "./seeded-gateway.mjs";

const MEETINGS = 1_000;
const SEGMENTS = 200;
const VOCABULARY = 6_000;
/** Requests one after another (latency), then at once over CONNECTIONS (throughput). */
const SEQUENTIAL = 400;
const CONNECTIONS = 8;
const CONCURRENT = 800;

/** A small deterministic generator, so every run seeds the same corpus. */
export function random(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const SYLLABLES = "ka lo mi ne ru sa ti vo pe da fi gu ho ja ze bo ly wi xe qu".split(" ");

/** Pronounceable made-up words: word 0 is the most common, as in speech (Zipf's law). */
export function vocabulary(next) {
	const words = new Set();
	while (words.size < VOCABULARY) {
		const length = 2 + Math.floor(next() * 3);
		words.add(Array.from({ length }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(""));
	}
	return [...words];
}

/** Zipf sampling by inverting the cumulative weights of 1/rank. */
function zipf(next, n) {
	const cumulative = [];
	let sum = 0;
	for (let rank = 1; rank <= n; rank++) {
		sum += 1 / rank;
		cumulative.push(sum);
	}
	return () => {
		const target = next() * sum;
		let lo = 0;
		let hi = n - 1;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if (cumulative[mid] < target) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	};
}

const PLATFORMS = ["google_meet", "teams", "zoom"];
const SPEAKERS = ["Alice Moreau", "Bob Lindqvist", "Chiara Rossi", "Dev Patel", "Emeka Obi", "Fatima Zahra", "Grace Ho", "Hiro Tanaka"];

const BENCH_EMAIL = "search-bench@example.com";
const NEIGHBOUR_EMAIL = "search-bench-neighbour@example.com";

/** The seed as SQL: one user, their meetings, then each meeting's segments in one statement. */
export function seedSql(words, next) {
	const pick = zipf(next, words.length);
	const userId = `(SELECT id FROM users WHERE email = '${BENCH_EMAIL}')`;
	const lines = [`INSERT INTO users (email, max_concurrent_bots, created_at) VALUES ('${BENCH_EMAIL}', 1, '2026-01-01T00:00:00.000Z');`];
	const yearStart = Date.parse("2026-01-01T00:00:00Z");
	for (let m = 0; m < MEETINGS; m++) {
		const platform = PLATFORMS[m % PLATFORMS.length];
		const nativeId =
			platform === "zoom"
				? String(80_000_000_000 + m)
				: platform === "teams"
					? String(9_000_000_000_000 + m)
					: `ben-${String(m).padStart(4, "0")}-chx`;
		const start = new Date(yearStart + m * 8 * 3600_000);
		const end = new Date(start.getTime() + SEGMENTS * 6_000);
		const data = m % 2 === 0 ? JSON.stringify({ title: `Bench meeting ${m}` }) : "{}";
		lines.push(
			`INSERT INTO meetings (user_id, platform, native_meeting_id, status, start_time, end_time, data, created_at, updated_at) VALUES (${userId}, ${sqlText(platform)}, ${sqlText(nativeId)}, 'completed', ${sqlText(start.toISOString())}, ${sqlText(end.toISOString())}, ${sqlText(data)}, ${sqlText(start.toISOString())}, ${sqlText(end.toISOString())});`,
		);
		const rows = [];
		for (let s = 0; s < SEGMENTS; s++) {
			const length = 8 + Math.floor(next() * 22);
			const text = Array.from({ length }, () => words[pick()]).join(" ");
			const at = new Date(start.getTime() + s * 6_000).toISOString();
			const speaker = SPEAKERS[((m + Math.floor(s / 3)) % 4) + (m % 5)];
			rows.push(
				`((SELECT max(id) FROM meetings), 's-${s}', ${sqlText(speaker)}, 'caption', ${sqlText(text)}, ${s * 6}, ${s * 6 + 5.5}, 'en', 1, ${sqlText(at)}, ${sqlText(at)}, ${sqlText(at)})`,
			);
		}
		lines.push(
			`INSERT INTO transcript_segments (meeting_id, segment_id, speaker, speaker_source, text, start, end, language, completed, absolute_start_time, created_at, updated_at) VALUES ${rows.join(",\n")};`,
		);
	}
	lines.push(...neighbourSql(words));
	return lines.join("\n");
}

/** The neighbour: one meeting of 4 segments in the bench's most common words. */
function neighbourSql(words) {
	const at = "2026-06-01T00:00:00.000Z";
	const userId = `(SELECT id FROM users WHERE email = '${NEIGHBOUR_EMAIL}')`;
	const rows = [0, 1, 2, 3].map(
		(s) =>
			`((SELECT max(id) FROM meetings), 's-${s}', 'Mallory', 'caption', ${sqlText(words.slice(s * 8, s * 8 + 8).join(" "))}, ${s * 6}, ${s * 6 + 5}, 'en', 1, ${sqlText(at)}, ${sqlText(at)}, ${sqlText(at)})`,
	);
	return [
		`INSERT INTO users (email, max_concurrent_bots, created_at) VALUES ('${NEIGHBOUR_EMAIL}', 1, ${sqlText(at)});`,
		`INSERT INTO meetings (user_id, platform, native_meeting_id, status, start_time, end_time, data, created_at, updated_at) VALUES (${userId}, 'google_meet', 'nbr-abcd-efg', 'completed', ${sqlText(at)}, ${sqlText(at)}, '{}', ${sqlText(at)}, ${sqlText(at)});`,
		`INSERT INTO transcript_segments (meeting_id, segment_id, speaker, speaker_source, text, start, end, language, completed, absolute_start_time, created_at, updated_at) VALUES ${rows.join(",\n")};`,
	];
}

/** Varied searches: words from rare to common, two words, a phrase, a prefix, filters, a later page. */
function queries(words, next) {
	const word = (lo, hi) => words[lo + Math.floor(next() * (hi - lo))];
	const kinds = {
		"rare word": () => ({ q: word(2000, VOCABULARY) }),
		"mid word": () => ({ q: word(200, 2000) }),
		// Ranks 20 to 200 are speech's function words ("we", "when", "said"): thousands of matches each.
		"frequent word": () => ({ q: word(20, 200) }),
		"two words": () => ({ q: `${word(50, 1000)} ${word(50, 1000)}` }),
		phrase: () => ({ q: `"${word(100, 1000)} ${word(0, 50)}"` }),
		// A word less its last letter, as a person types "budge*" for budget, budgets, budgeted.
		prefix: () => ({ q: `${word(100, 1000).slice(0, -1)}*` }),
		"speaker filter": () => ({ q: word(100, 1000), speaker: SPEAKERS[Math.floor(next() * SPEAKERS.length)] }),
		"platform + dates": () => ({
			q: word(100, 1000),
			platform: PLATFORMS[Math.floor(next() * 3)],
			from: "2026-03-01T00:00:00Z",
			to: "2026-06-30T00:00:00Z",
		}),
		"page 3": () => ({ q: word(100, 1000), limit: 20, offset: 40 }),
	};
	const list = [];
	for (let i = 0; i < 400; i++) {
		const names = Object.keys(kinds);
		const kind = names[i % names.length];
		list.push({ kind, params: kinds[kind]() });
	}
	return list;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function timed(base, key, params) {
	const url = `${base}/transcripts/search?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;
	const started = performance.now();
	const res = await fetch(url, { headers: { "X-API-Key": key } });
	const body = await res.json();
	const ms = performance.now() - started;
	if (res.status !== 200) throw new Error(`search ${url}: ${res.status} ${JSON.stringify(body)}`);
	return { ms, total: body.total };
}

function summary(label, samples) {
	const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
	const fmt = (v) => v.toFixed(1).padStart(6);
	return `${label.padEnd(18)} n=${String(sorted.length).padStart(4)}   p50 ${fmt(percentile(sorted, 50))} ms   p95 ${fmt(percentile(sorted, 95))} ms   p99 ${fmt(percentile(sorted, 99))} ms`;
}

export async function benchSearch({ adminToken }) {
	console.log(`\n## Search: ${MEETINGS} meetings × ${SEGMENTS} segments, GET /transcripts/search through wrangler dev`);
	const next = random(25);
	const words = vocabulary(next);
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-bench-search-"));
	let gateway;
	try {
		applyMigrations(stateDir, true);
		const seedStarted = performance.now();
		seed(stateDir, seedSql(words, next));
		console.log(
			`seeded ${MEETINGS * SEGMENTS} segments in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s: generated SQL through \`wrangler d1 execute --local --file\` into the gateway's local D1 before it starts, the search log's triggers running per row`,
		);
		const started = await seededGateway(stateDir);
		gateway = started.gateway;
		const base = started.base;
		const key = await benchUserKey(base, adminToken);
		await loaded(base, key);
		await measure(base, key, queries(words, next));
		await noisyNeighbour(base, key, await benchUserKey(base, adminToken, NEIGHBOUR_EMAIL), words);
	} finally {
		gateway?.kill("SIGTERM");
		await new Promise((r) => setTimeout(r, 500));
		rmSync(stateDir, { recursive: true, force: true });
	}
}

/** A key of the seeded user, from the admin API. */
async function benchUserKey(base, adminToken, email = BENCH_EMAIL) {
	const admin = { "X-Admin-API-Key": adminToken };
	const user = await (await fetch(`${base}/admin/users/email/${encodeURIComponent(email)}`, { headers: admin })).json();
	const minted = await fetch(`${base}/admin/users/${user.id}/tokens?scopes=tx`, { method: "POST", headers: admin });
	if (minted.status !== 201) throw new Error(`minting the bench key: ${minted.status} ${await minted.text()}`);
	return (await minted.json()).token;
}

async function measure(base, key, list) {
	for (const { params } of list.slice(0, 30)) await timed(base, key, params);
	// The same gateway's floors under the same load: no key (GET /health), and a key checked (GET /auth/me).
	const floor = async (path, headers = {}) => {
		const samples = [];
		for (let i = 0; i < 100; i++) {
			const started = performance.now();
			await (await fetch(`${base}${path}`, { headers })).text();
			samples.push({ ms: performance.now() - started });
		}
		return samples;
	};
	const health = await floor("/health");
	const me = await floor("/auth/me", { "X-API-Key": key });

	const sequential = [];
	for (let i = 0; i < SEQUENTIAL; i++) {
		const { kind, params } = list[i % list.length];
		sequential.push({ kind, ...(await timed(base, key, params)) });
	}
	console.log(`machine load average (1 min) ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
	console.log(summary("GET /health", health));
	console.log(summary("GET /auth/me", me));
	console.log(`one at a time (${SEQUENTIAL} requests, ${list.length} different queries):`);
	console.log(summary("all searches", sequential));
	for (const kind of [...new Set(sequential.map((s) => s.kind))]) {
		const of = sequential.filter((s) => s.kind === kind);
		const hits = of.map((s) => s.total).sort((a, b) => a - b);
		console.log(`${summary(kind, of)}   matches: median ${percentile(hits, 50)}, max ${hits[hits.length - 1]}`);
	}

	const concurrent = [];
	let cursor = 0;
	const started = performance.now();
	await Promise.all(
		Array.from({ length: CONNECTIONS }, async () => {
			while (cursor < CONCURRENT) {
				const { kind, params } = list[cursor++ % list.length];
				concurrent.push({ kind, ...(await timed(base, key, params)) });
			}
		}),
	);
	const seconds = (performance.now() - started) / 1000;
	console.log(`${CONNECTIONS} at once (${CONCURRENT} requests): ${(concurrent.length / seconds).toFixed(0)} searches/s`);
	console.log(summary("all searches", concurrent));
	const p95 = percentile(
		sequential.map((s) => s.ms).sort((a, b) => a - b),
		95,
	);
	console.log(`goal: p95 under 50 ms one at a time: ${p95 < 50 ? "met" : "NOT met"} (${p95.toFixed(1)} ms)`);
}

/**
 * Migration 0016 queued every seeded meeting for its partition; the first searches load them
 * (503 with Retry-After meanwhile, the partition's alarm going on between them).
 */
async function loaded(base, key) {
	const started = performance.now();
	let refusals = 0;
	for (;;) {
		const res = await fetch(`${base}/transcripts/search?q=bench`, { headers: { "X-API-Key": key } });
		await res.text();
		if (res.status === 200) break;
		if (res.status !== 503) throw new Error(`search while loading: ${res.status}`);
		refusals++;
		await new Promise((r) => setTimeout(r, 1000));
	}
	console.log(
		`lazy backfill: the partition loaded ${MEETINGS * SEGMENTS} segments from D1 in ${((performance.now() - started) / 1000).toFixed(1)} s (${refusals} searches answered 503 meanwhile)`,
	);
}

/** The costliest queries the neighbour may send, and the review's, which is now refused (422). */
function floodQueries(words) {
	const prefixes = words
		.slice(0, 400)
		.filter((w) => w.length >= 4)
		.map((w) => `${w.slice(0, 3)}*`);
	const allowed = Array.from({ length: 50 }, (_, i) => prefixes.slice(i % 40, (i % 40) + 8).join(" "));
	const review =
		"k-* l-* m-* n-* r-* s-* t-* v-* p-* d-* f-* g-* h-* j-* z-* b-* w-* x-* q-* y-* k-* l-* m-* n-* r-* s-* t-* v-* p-* d-* f-* g-*";
	return [...allowed, review];
}

const FLOODERS = 4;
const LISTINGS = 150;

async function listings(base, key) {
	const samples = [];
	for (let i = 0; i < LISTINGS; i++) {
		const started = performance.now();
		const res = await fetch(`${base}/meetings?limit=5`, { headers: { "X-API-Key": key } });
		await res.text();
		if (res.status !== 200) throw new Error(`GET /meetings: ${res.status}`);
		samples.push({ ms: performance.now() - started });
	}
	return samples;
}

/**
 * The victim's listings while the neighbour sends `paths` over FLOODERS connections: at `perSecond`
 * in all (what its bucket lets through), or as fast as answered when it is 0.
 */
async function underFlood(base, victimKey, neighbourKey, paths, perSecond) {
	const spacing = perSecond > 0 ? (1000 * FLOODERS) / perSecond : 0;
	const statuses = {};
	const floodMs = [];
	let running = true;
	let sent = 0;
	const flooders = Array.from({ length: FLOODERS }, async () => {
		while (running) {
			const path = paths[sent++ % paths.length];
			const started = performance.now();
			const res = await fetch(`${base}${path}`, { headers: { "X-API-Key": neighbourKey } });
			await res.text();
			const ms = performance.now() - started;
			floodMs.push({ ms });
			statuses[res.status] = (statuses[res.status] ?? 0) + 1;
			if (ms < spacing) await new Promise((r) => setTimeout(r, spacing - ms));
		}
	});
	const started = performance.now();
	const during = await listings(base, victimKey);
	running = false;
	await Promise.all(flooders);
	return { during, floodMs, statuses, rate: sent / ((performance.now() - started) / 1000) };
}

/** The deployment's default bucket (GATEWAY_RATE_LIMIT_RPS): what one account may send; the bench's gateway runs unlimited. */
const ACCOUNT_RPS = 20;

async function noisyNeighbour(base, victimKey, neighbourKey, words) {
	const alone = await listings(base, victimKey);
	const searches = floodQueries(words).map((q) => `/transcripts/search?q=${encodeURIComponent(q)}`);
	const p50 = (samples) =>
		percentile(
			samples.map((x) => x.ms).sort((a, b) => a - b),
			50,
		);
	const times = (samples) => (p50(samples) / p50(alone)).toFixed(2);
	console.log(summary("GET /meetings alone", alone));
	// Unlimited, and the same flood of the cheapest keyed request as the control: what is the machine's (a
	// shared 2-core box running the Worker, D1 and the flood's client) shows apart from what is search's.
	const unlimited = await underFlood(base, victimKey, neighbourKey, searches, 0);
	const control = await underFlood(base, victimKey, neighbourKey, ["/auth/me"], 0);
	console.log(
		`unlimited flood, ${FLOODERS} at once: ${unlimited.rate.toFixed(0)} searches/s (answers ${JSON.stringify(unlimited.statuses)}): GET /meetings p50 ${p50(unlimited.during).toFixed(1)} ms (${times(unlimited.during)} x); control, ${control.rate.toFixed(0)} GET /auth/me/s: ${p50(control.during).toFixed(1)} ms (${times(control.during)} x)`,
	);
	const { during, floodMs, statuses, rate } = await underFlood(base, victimKey, neighbourKey, searches, ACCOUNT_RPS);
	console.log(
		`neighbour's flood at its bucket's ${ACCOUNT_RPS}/s: ${FLOODERS} at once, ${rate.toFixed(1)} searches/s (answers ${JSON.stringify(statuses)}; 8 three-letter prefixes, and the review's 32 one-letter prefixes)`,
	);
	console.log(summary("neighbour search", floodMs));
	console.log(summary("GET /meetings flood", during));
	const ratio = p50(during) / p50(alone);
	console.log(
		`noisy neighbour: GET /meetings p50 ${p50(alone).toFixed(1)} ms alone, ${p50(during).toFixed(1)} ms while another account floods search (${ratio.toFixed(2)} x)`,
	);
	console.log(`goal: at most 2 x: ${ratio <= 2 ? "met" : "NOT met"}`);
}
