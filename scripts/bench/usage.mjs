// `npm run bench -- usage`: GET /usage and GET /usage/meetings for an account with a year of
// meetings (4,000: about 11 a day, every other one recorded in parts, relayed audio on each), on
// a gateway of its own whose D1 is seeded before it starts. Goal: a month's report p95 under
// 100 ms, a year's under 500 ms; the caps' check reads the same month (src/usage/account-usage.ts).
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { applyMigrations } from "../local-stack.mjs";
import { seed, seededGateway, sqlText } from "./seeded-gateway.mjs";

const MEETINGS = 4_000;
const EMAIL = "usage-bench@example.com";
const ROUNDS = 60;
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** One user; meetings every 2.2 h through 2026, 40 min each after 1 min of waiting; recordings and relayed audio. */
function seedSql() {
	const userId = `(SELECT id FROM users WHERE email = '${EMAIL}')`;
	const meeting = "(SELECT max(id) FROM meetings)";
	const lines = [`INSERT INTO users (email, max_concurrent_bots, created_at) VALUES ('${EMAIL}', 3, '2026-01-01T00:00:00.000Z');`];
	const yearStart = Date.parse("2026-01-01T00:00:00Z");
	for (let m = 0; m < MEETINGS; m++) {
		const joining = new Date(yearStart + m * 2.2 * 3600_000);
		const start = new Date(joining.getTime() + 60_000);
		const end = new Date(start.getTime() + 40 * 60_000);
		const day = start.toISOString().slice(0, 10);
		lines.push(
			`INSERT INTO meetings (user_id, platform, native_meeting_id, status, joining_at, start_time, end_time, data, created_at, updated_at) VALUES (${userId}, 'google_meet', ${sqlText(`use-${String(m).padStart(4, "0")}-chx`)}, 'completed', ${sqlText(joining.toISOString())}, ${sqlText(start.toISOString())}, ${sqlText(end.toISOString())}, '{}', ${sqlText(joining.toISOString())}, ${sqlText(end.toISOString())});`,
			`INSERT INTO transcription_usage_meetings (meeting_id, day, seconds) VALUES (${meeting}, ${sqlText(day)}, 2400);`,
			`INSERT INTO transcription_usage (user_id, day, seconds) VALUES (${userId}, ${sqlText(day)}, 2400) ON CONFLICT (user_id, day) DO UPDATE SET seconds = seconds + 2400;`,
		);
		if (m % 2 === 0) {
			lines.push(
				`INSERT INTO recordings (meeting_id, user_id, session_uid, source, status, created_at) VALUES (${meeting}, ${userId}, 'bench-${m}', 'bot', 'completed', ${sqlText(end.toISOString())});`,
				`INSERT INTO media_files (recording_id, type, format, storage_backend, storage_key, file_size_bytes, duration_seconds, created_at, parts) VALUES ((SELECT max(id) FROM recordings), 'audio', 'webm', 'r2', 'bench/${m}', 2000000, 2400, ${sqlText(end.toISOString())}, 2);`,
				`INSERT INTO media_file_parts (media_file_id, part_number, storage_key, bytes, media_seconds, created_at) VALUES ((SELECT max(id) FROM media_files), 1, 'bench/${m}/1', 1000000, 1200, ${sqlText(end.toISOString())}), ((SELECT max(id) FROM media_files), 2, 'bench/${m}/2', 1000000, 2400, ${sqlText(end.toISOString())});`,
			);
		}
	}
	return lines.join("\n");
}

async function timed(base, key, pathAndQuery) {
	const started = performance.now();
	const res = await fetch(`${base}${pathAndQuery}`, { headers: { "X-API-Key": key } });
	const body = await res.json();
	const ms = performance.now() - started;
	if (res.status !== 200) throw new Error(`${pathAndQuery}: ${res.status} ${JSON.stringify(body)}`);
	return ms;
}

async function series(base, key, label, pathAndQuery) {
	for (let i = 0; i < 5; i++) await timed(base, key, pathAndQuery);
	const samples = [];
	for (let i = 0; i < ROUNDS; i++) samples.push(await timed(base, key, pathAndQuery));
	samples.sort((a, b) => a - b);
	const fmt = (v) => v.toFixed(1).padStart(6);
	console.log(`${label.padEnd(44)} p50 ${fmt(percentile(samples, 50))} ms   p95 ${fmt(percentile(samples, 95))} ms`);
}

export async function benchUsage({ adminToken }) {
	console.log(
		`\n## Usage: one account with ${MEETINGS} meetings over 2026, through wrangler dev (${ROUNDS} requests each, one after another)`,
	);
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-bench-usage-"));
	let gateway;
	try {
		applyMigrations(stateDir, true);
		seed(stateDir, seedSql());
		const started = await seededGateway(stateDir);
		gateway = started.gateway;
		const base = started.base;
		const admin = { "X-Admin-API-Key": adminToken };
		const user = await (await fetch(`${base}/admin/users/email/${encodeURIComponent(EMAIL)}`, { headers: admin })).json();
		const key = (await (await fetch(`${base}/admin/users/${user.id}/tokens?scopes=tx`, { method: "POST", headers: admin })).json()).token;
		await series(base, key, "GET /auth/me (the floor: a key checked)", "/auth/me");
		await series(base, key, "GET /usage, March (31 days, ~340 meetings)", "/usage?from=2026-03-01&to=2026-03-31");
		await series(base, key, "GET /usage, the year (365 days, 4,000)", "/usage?from=2026-01-01&to=2026-12-31");
		await series(base, key, "GET /usage/meetings, March, first 50", "/usage/meetings?from=2026-03-01&to=2026-03-31");
		await series(base, key, "GET /usage/meetings, the year, last page", "/usage/meetings?from=2026-01-01&to=2026-12-31&offset=3950");
		const capped = await fetch(`${base}/admin/users/${user.id}/usage-caps`, {
			method: "PATCH",
			headers: { ...admin, "content-type": "application/json" },
			body: JSON.stringify({ bot_minutes_per_day: 100_000, bot_minutes_per_month: 100_000, storage_bytes: 1e12 }),
		});
		if (capped.status !== 200) throw new Error(`setting caps: ${capped.status}`);
		await series(base, key, "GET /usage, March, with all three caps set", "/usage?from=2026-03-01&to=2026-03-31");
	} finally {
		gateway?.kill("SIGTERM");
		await new Promise((r) => setTimeout(r, 500));
		rmSync(stateDir, { recursive: true, force: true });
	}
}
