import autocannon from "autocannon";

const CONNECTIONS = 32;
const ROUNDS = 4;
const SECONDS = 5;

function load(url, headers) {
	return autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
}

/** Sums rounds of one route: requests, and the latency percentiles weighted by requests. */
function combine(results) {
	const total = results.reduce((n, r) => n + r.requests.total, 0);
	const weighted = (key) => results.reduce((n, r) => n + r.latency[key] * r.requests.total, 0) / total;
	return {
		rps: total / (results.length * SECONDS),
		p50: weighted("p50"),
		p99: weighted("p99"),
		ok: results.reduce((n, r) => n + r["2xx"], 0),
		bad: results.reduce((n, r) => n + r.non2xx + r.errors, 0),
	};
}

const row = (label, r) =>
	`${label.padEnd(28)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(0).padStart(4)} ms   p99 ${r.p99.toFixed(0).padStart(4)} ms   (${r.ok} ok, ${r.bad} not ok)`;

/**
 * Authenticated GET /auth/me against unauthenticated GET /health in the same run, in
 * alternating rounds so that drift in the machine's load falls on both alike.
 */
export async function benchGateway({ base, key }) {
	await autocannon({ url: `${base}/health`, connections: 8, duration: 2 });
	await autocannon({ url: `${base}/auth/me`, headers: { "X-API-Key": key }, connections: 8, duration: 2 });
	const health = [];
	const me = [];
	for (let round = 0; round < ROUNDS; round++) {
		health.push(await load(`${base}/health`, {}));
		me.push(await load(`${base}/auth/me`, { "X-API-Key": key }));
	}
	const h = combine(health);
	const m = combine(me);
	console.log(`\n## Gateway through wrangler dev (${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s)`);
	console.log(row("GET /health (no key)", h));
	console.log(row("GET /auth/me (key + bucket)", m));
	console.log(`authenticated throughput: ${((m.rps / h.rps) * 100).toFixed(0)}% of /health (goal: at least 60%)`);
}
