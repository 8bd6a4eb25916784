import { readdirSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { startGitServer } from "../../test/receiver/git-server.ts";

const MB = 1024 * 1024;

/**
 * What hostile inputs cost the running gateway (security review, findings 4 and 5): `swap` to a
 * repository whose one file is 300 MB of zeros (a pack of a few hundred KB), and a sync of an ICS
 * feed of 2,000 series repeating every 15 minutes. For each: how long until the answer, the
 * gateway's memory (the resident size of its workerd processes) before and after, and how long
 * GET /health takes meanwhile (asked every 50 ms).
 *
 * Needs a gateway with OUTBOUND_ALLOW_PRIVATE=true (the repository and the feed are on
 * 127.0.0.1) and `gatewayPid`, the wrangler process whose workerd children are measured.
 */
export async function benchHostileInputs(ctx) {
	console.log("\n## Hostile inputs (security review, findings 4 and 5)");
	await benchGitBomb(ctx);
	await benchQuarterHourlyFeed(ctx);
}

export async function benchGitBomb({ base, key, gatewayPid }) {
	const headers = { "X-API-Key": key, "content-type": "application/json" };
	const git = await startGitServer(undefined, { "bomb/zeros-300mb.git": { "zeros.bin": { zeros: 300 * MB } } });
	try {
		const pack = packBytes(git.root, "bomb/zeros-300mb.git");
		const run = await whileProbingHealth(base, gatewayPid, () =>
			fetch(`${base}/agent/api/workspace/swap`, {
				method: "POST",
				headers,
				body: JSON.stringify({ repo: `${git.url}/bomb/zeros-300mb.git` }),
			}).then(async (res) => `${res.status} ${await res.text()}`),
		);
		report(`swap to a 300 MB file of zeros (pack ${(pack / 1024).toFixed(0)} KB)`, run);
	} finally {
		await git.close();
	}
}

export async function benchQuarterHourlyFeed({ base, key, gatewayPid }) {
	const headers = { "X-API-Key": key, "content-type": "application/json" };
	const feed = await serveFeed(quarterHourlySeries(2000));
	try {
		// The first sync runs in the connection's creation (docs/api.md#calendars).
		let createdId = "";
		const run = await whileProbingHealth(base, gatewayPid, () =>
			fetch(`${base}/user/calendars`, { method: "POST", headers, body: JSON.stringify({ name: "Hostile", ics_url: feed.url }) }).then(
				async (res) => {
					const created = await res.json();
					createdId = created.id;
					return `${res.status} created ${created.sync?.counts?.created}, last_error ${JSON.stringify(created.sync?.last_error)}`;
				},
			),
		);
		report(`sync of 2,000 series every 15 minutes (feed ${(feed.bytes / MB).toFixed(1)} MB)`, run);
		await fetch(`${base}/user/calendars/${createdId}`, { method: "DELETE", headers });
	} finally {
		feed.server.close();
	}
}

function report(label, { ms, answer, health, rssBefore, rssAfter }) {
	const sorted = [...health].sort((a, b) => a - b);
	const p50 = sorted[Math.floor(sorted.length / 2)] ?? 0;
	const max = sorted.at(-1) ?? 0;
	console.log(`${label}: ${ms.toFixed(0)} ms → ${answer.slice(0, 160)}`);
	console.log(
		`  gateway RSS ${(rssBefore / MB).toFixed(0)} MB → ${(rssAfter / MB).toFixed(0)} MB; GET /health meanwhile: ${health.length} answers, p50 ${p50.toFixed(0)} ms, max ${max.toFixed(0)} ms`,
	);
}

/** Runs `work` while asking /health every 50 ms (one at a time), and reads the gateway's memory around it. */
async function whileProbingHealth(base, gatewayPid, work) {
	const rssBefore = workerdRss(gatewayPid);
	const health = [];
	let done = false;
	const probe = (async () => {
		while (!done) {
			const started = performance.now();
			await fetch(`${base}/health`).then((res) => res.arrayBuffer());
			health.push(performance.now() - started);
			await new Promise((r) => setTimeout(r, 50));
		}
	})();
	const started = performance.now();
	const answer = await work();
	const ms = performance.now() - started;
	done = true;
	await probe;
	return { ms, answer, health, rssBefore, rssAfter: workerdRss(gatewayPid) };
}

/** Resident bytes of the workerd processes under `pid` (wrangler runs the Worker in one). */
function workerdRss(pid) {
	const children = (p) => {
		try {
			return readFileSync(`/proc/${p}/task/${p}/children`, "utf8").split(" ").filter(Boolean).map(Number);
		} catch {
			return [];
		}
	};
	let total = 0;
	for (const stack = [pid]; stack.length; ) {
		const p = stack.pop();
		stack.push(...children(p));
		try {
			const status = readFileSync(`/proc/${p}/status`, "utf8");
			if (!/^Name:\s+workerd/m.test(status)) continue;
			total += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
		} catch {}
	}
	return total;
}

function packBytes(root, name) {
	const dir = path.join(root, name, "objects", "pack");
	return readdirSync(dir)
		.filter((f) => f.endsWith(".pack"))
		.reduce((n, f) => n + statSync(path.join(dir, f)).size, 0);
}

/** The review's feed: `n` series every 15 minutes since three days ago, 10 minutes long. */
function quarterHourlySeries(n) {
	const start = new Date(Date.now() - 3 * 86_400_000)
		.toISOString()
		.replace(/[-:]/g, "")
		.replace(/\.\d{3}/, "");
	const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//meetbot bench//EN"];
	for (let i = 0; i < n; i++) {
		lines.push("BEGIN:VEVENT", `UID:q-${i}@bench`, "DTSTAMP:20250101T000000Z", `DTSTART:${start}`, "DURATION:PT10M");
		lines.push("RRULE:FREQ=MINUTELY;INTERVAL=15", `SUMMARY:Every quarter hour ${i}`, "END:VEVENT");
	}
	lines.push("END:VCALENDAR", "");
	return lines.join("\r\n");
}

function serveFeed(body) {
	const server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/calendar" }).end(body));
	return new Promise((resolve) =>
		server.listen(0, "127.0.0.1", () =>
			resolve({ server, bytes: body.length, url: `http://127.0.0.1:${server.address().port}/feeds/private-bench/hostile.ics` }),
		),
	);
}
