// A local stand-in for Cloudflare Queues' HTTP API (docs/bot-fleet.md#running-it-locally):
// wrangler dev has no pull consumers (workers-sdk#9665), so `npm start` and the tests run this.
// It speaks the REST shapes of developers.cloudflare.com/queues/configuration/pull-consumers/
// under `/client/v4/accounts/<account>/queues/<queue id>`:
//   POST …/messages        {body, content_type?: "json"|"text", delay_seconds?}   publish one
//   POST …/messages/batch  {messages: [{body, content_type?, delay_seconds?}], delay_seconds?}
//   POST …/messages/pull   {batch_size? (5, max 100), visibility_timeout_ms? (30000, max 12 h)}
//        → result.messages [{id, body, timestamp_ms, attempts, lease_id, metadata}]; a json
//          body arrives base64-encoded, as Cloudflare sends it
//   POST …/messages/ack    {acks: [{lease_id}], retries: [{lease_id, delay_seconds?}]}
// Every answer is the API's envelope {success, errors, messages, result}. Delivery is at least
// once: a lease not acked within its visibility timeout is delivered again; a message is
// dropped after `maxRetries` deliveries (Cloudflare's default is 3). Queues are kept apart by
// id, so parallel tests each use their own.
import { randomBytes, randomUUID } from "node:crypto";
import { createServer } from "node:http";

const MAX_BATCH = 100;
const MAX_VISIBILITY_MS = 12 * 3600_000;
const ROUTE = /^\/client\/v4\/accounts\/([^/]+)\/queues\/([^/]+)\/messages(?:\/(batch|pull|ack))?$/;

/** The queues' state, apart from HTTP, so tests can drive time (`now`) and read counts. */
export function createLocalQueues({ now = () => Date.now(), maxRetries = 3 } = {}) {
	/** queue id → messages */
	const queues = new Map();
	const queueOf = (id) => {
		if (!queues.has(id)) queues.set(id, []);
		return queues.get(id);
	};
	const publish = (queueId, { body, content_type = "json", delay_seconds = 0 }) => {
		if (body === undefined) throw new QueueError(400, "body is required");
		if (content_type !== "json" && content_type !== "text") throw new QueueError(400, "content_type must be json or text");
		if (content_type === "text" && typeof body !== "string") throw new QueueError(400, "a text message's body must be a string");
		const delay = Number(delay_seconds) || 0;
		queueOf(queueId).push({
			id: randomBytes(16).toString("hex"),
			body,
			contentType: content_type,
			timestampMs: now(),
			attempts: 0,
			visibleAt: now() + delay * 1000,
			leaseId: null,
		});
	};
	const pull = (queueId, { batch_size = 5, visibility_timeout_ms, visibility_timeout } = {}) => {
		const size = Math.min(MAX_BATCH, Math.max(1, Number(batch_size) || 5));
		// The docs' examples name it `visibility_timeout` (in ms); the API reference `visibility_timeout_ms`.
		const visibility = Math.min(MAX_VISIBILITY_MS, Math.max(0, Number(visibility_timeout_ms ?? visibility_timeout ?? 30_000)));
		const q = queueOf(queueId);
		for (let i = q.length - 1; i >= 0; i--) if (q[i].visibleAt <= now() && q[i].attempts >= maxRetries) q.splice(i, 1);
		const due = q.filter((m) => m.visibleAt <= now()).slice(0, size);
		return due.map((m) => {
			m.attempts += 1;
			m.leaseId = `${m.id}.${randomUUID()}`;
			m.visibleAt = now() + visibility;
			const body = m.contentType === "json" ? Buffer.from(JSON.stringify(m.body)).toString("base64") : m.body;
			return {
				id: m.id,
				body,
				timestamp_ms: m.timestampMs,
				attempts: m.attempts,
				lease_id: m.leaseId,
				metadata: { "CF-sourceMessageSource": "api", "CF-Content-Type": m.contentType },
			};
		});
	};
	const ack = (queueId, { acks = [], retries = [] } = {}) => {
		const q = queueOf(queueId);
		// Permissive, as Cloudflare is: a lease acked after its timeout still counts.
		const byLease = (leaseId) => q.findIndex((m) => typeof leaseId === "string" && m.id === leaseId.split(".")[0]);
		let ackCount = 0;
		let retryCount = 0;
		for (const { lease_id } of acks) {
			const i = byLease(lease_id);
			if (i >= 0) {
				q.splice(i, 1);
				ackCount += 1;
			}
		}
		for (const { lease_id, delay_seconds = 0 } of retries) {
			const i = byLease(lease_id);
			if (i >= 0) {
				q[i].visibleAt = now() + (Number(delay_seconds) || 0) * 1000;
				q[i].leaseId = null;
				retryCount += 1;
			}
		}
		return { ackCount, retryCount, warnings: [] };
	};
	/** Messages not yet acked (delivered or not), for tests and the metrics' backlog. */
	const backlog = (queueId) => queueOf(queueId).length;
	return { publish, pull, ack, backlog };
}

class QueueError extends Error {
	constructor(status, message) {
		super(message);
		this.status = status;
	}
}

const envelope = (result) => ({ success: true, errors: [], messages: [], result });
const failure = (code, message) => ({ success: false, errors: [{ code, message }], messages: [], result: null });

/**
 * An HTTP handler over `queues`; `token`, when given, is required as `Authorization: Bearer`.
 * Returns false for a path it does not serve, so a test server can mount it beside its own.
 */
export function queueHandler(queues, { token } = {}) {
	return async (req, res) => {
		const url = new URL(req.url ?? "/", "http://local-queue");
		const match = ROUTE.exec(url.pathname);
		if (!match) return false;
		// Answers and says the request was served.
		const send = (status, body) => {
			res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
			return true;
		};
		if (req.method !== "POST") return send(405, failure(10405, "method not allowed"));
		if (token && req.headers.authorization !== `Bearer ${token}`) return send(401, failure(10000, "Authentication error"));
		let body;
		try {
			const chunks = [];
			for await (const chunk of req) chunks.push(chunk);
			body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
		} catch {
			return send(400, failure(10400, "body is not JSON"));
		}
		const [, , queueId, action] = match;
		try {
			if (!action) {
				queues.publish(queueId, body);
				return send(200, envelope(null));
			}
			if (action === "batch") {
				for (const message of body.messages ?? []) queues.publish(queueId, { delay_seconds: body.delay_seconds, ...message });
				return send(200, envelope(null));
			}
			if (action === "pull") return send(200, envelope({ messages: queues.pull(queueId, body) }));
			return send(200, envelope(queues.ack(queueId, body)));
		} catch (err) {
			if (err instanceof QueueError) return send(err.status, failure(10400, err.message));
			throw err;
		}
	};
}

/** Starts the stand-in on loopback; `url(queueId)` is that queue's REST base, as SPAWN_QUEUE_URL takes it. */
export async function startLocalQueue({ port = 0, token, account = "local", ...options } = {}) {
	const queues = createLocalQueues(options);
	const handle = queueHandler(queues, { token });
	const server = createServer((req, res) => {
		handle(req, res)
			.then((served) => {
				if (!served) res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify(failure(10404, "not found")));
			})
			.catch(() => {
				if (!res.headersSent) res.writeHead(500).end();
			});
	});
	await new Promise((resolve, reject) => {
		server.once("error", reject);
		server.listen(port, "127.0.0.1", resolve);
	});
	const bound = server.address().port;
	return {
		port: bound,
		queues,
		url: (queueId) => `http://127.0.0.1:${bound}/client/v4/accounts/${account}/queues/${queueId}`,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
