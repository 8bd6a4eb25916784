import autocannon from "autocannon";

const CONNECTIONS = 32;
const SECONDS = 10;

function load(url, headers) {
	return autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
}

function row(label, r) {
	const ok = r["2xx"];
	const bad = r.non2xx + r.errors;
	return `${label.padEnd(28)} ${r.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   (${ok} ok, ${bad} not ok)`;
}

/** Authenticated GET /auth/me against unauthenticated GET /health, same run, same settings. */
export async function benchGateway({ base, key }) {
	await autocannon({ url: `${base}/health`, connections: 8, duration: 2 });
	await autocannon({ url: `${base}/auth/me`, headers: { "X-API-Key": key }, connections: 8, duration: 2 });

	const health = await load(`${base}/health`, {});
	const me = await load(`${base}/auth/me`, { "X-API-Key": key });
	console.log(`\n## Gateway through wrangler dev (${CONNECTIONS} connections, ${SECONDS} s each)`);
	console.log(row("GET /health (no key)", health));
	console.log(row("GET /auth/me (key + bucket)", me));
	console.log(
		`authenticated throughput: ${((me.requests.average / health.requests.average) * 100).toFixed(0)}% of /health (goal: at least 60%)`,
	);
}
