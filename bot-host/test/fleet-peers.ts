/**
 * The bot host's peers in the fleet, for tests of the pull loop: the gateway's claim and report
 * routes (speaking fleet.ts's shapes and the Worker's rules: each host presents a credential of
 * its own and speaks only as itself; a claim presents the ticket published for that attempt,
 * and the first claimer of the current attempt gets the spawn request, anyone else 409 with a
 * reason), and the local Queues stand-in (scripts/local-queue.mjs) behind a server that counts
 * pulls and can fail like the real API.
 */
import { randomBytes } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { z } from "zod";
import { createLocalQueues, queueHandler } from "../../scripts/local-queue.mjs";
import { type ClaimRefusalReason, ClaimRequest, HostReport, type SpawnTicket } from "../../src/bot-channel/fleet.ts";
import type { SpawnRequest } from "../../src/bot-channel/protocol.ts";

async function listen(server: http.Server): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(0, "127.0.0.1", () => resolve());
	});
	const address = server.address();
	return typeof address === "object" && address ? address.port : 0;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	try {
		return JSON.parse(Buffer.concat(chunks).toString("utf8"));
	} catch {
		return undefined;
	}
}

function send(res: ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

/** A meeting the claim server was offered, as its room keeps it. */
interface OfferedMeeting {
	attempt: number;
	request: z.input<typeof SpawnRequest>;
	ticket: SpawnTicket;
	ended: boolean;
	claimedBy: string | null;
}

export interface ClaimServer {
	url: string;
	/** Claims as they arrived, with the answer's status and the host the credential named. */
	claims: { claim: ClaimRequest; status: number; reason?: ClaimRefusalReason; as: string }[];
	/** Reports that parsed as HostReport; `rejectedReports` counts bodies that did not. */
	reports: HostReport[];
	rejectedReports: number;
	/** Valid reports answered with `reportStatus` because it was not 2xx. */
	refusedReports: number;
	/** A new credential for `hostId` (its earlier one stops working), as POST /admin/bot-hosts mints one. */
	credentialFor(hostId: string): string;
	/**
	 * The meeting wants a bot for this attempt; the spawn request is what the winner gets. The
	 * answer is the ticket the room publishes: a claim must present it as it is.
	 */
	offer(request: z.input<typeof SpawnRequest> & { attempt: number }, notAfter?: string): SpawnTicket;
	/** The meeting no longer wants a bot: claims answer 409 ended. */
	end(meetingId: number): void;
	/** The next `count` claims answer `status` (an overloaded gateway or room). */
	failClaims(count: number, status: number): void;
	/** How the report route answers from now on (404: not deployed yet). */
	reportStatus: number;
	/**
	 * The queue hosts pull through this gateway from (`/internal/bot-hosts/queue/messages/…`, as
	 * the Worker serves it): set, pulls are passed on to it, each bounded by the free slots the
	 * pulling host last reported (src/routes/bot-host-queue.ts); unset, those routes answer 404.
	 */
	hostQueue: { url: string } | null;
	/** Pulls made through this gateway: the host the credential named, and the batch passed on. */
	hostPulls: { as: string; batch: number }[];
	close(): Promise<void>;
}

export async function startClaimServer(): Promise<ClaimServer> {
	const meetings = new Map<number, OfferedMeeting>();
	/** Host id by credential. */
	const credentials = new Map<string, string>();
	let failures: { count: number; status: number } = { count: 0, status: 503 };
	const state: Omit<ClaimServer, "url" | "close" | "offer" | "end" | "failClaims" | "credentialFor"> = {
		claims: [],
		reports: [],
		rejectedReports: 0,
		refusedReports: 0,
		reportStatus: 204,
		hostQueue: null,
		hostPulls: [],
	};
	/** The Worker's pull and ack routes, in effect: the pull bounded by the host's last reported free slots. */
	const passOn = async (as: string, settle: "pull" | "ack", body: unknown, res: ServerResponse) => {
		if (!state.hostQueue) return send(res, 404, { detail: "not found" });
		let forwarded = body;
		if (settle === "pull") {
			const free = state.reports.filter((r) => r.host_id === as).at(-1)?.free ?? 0;
			const batch = Math.min(Number((body as { batch_size?: number } | undefined)?.batch_size ?? 5), free);
			state.hostPulls.push({ as, batch });
			if (batch <= 0) return send(res, 200, { success: true, errors: [], messages: [], result: { messages: [] } });
			forwarded = { ...(body as object), batch_size: batch };
		}
		const answer = await fetch(`${state.hostQueue.url}/messages/${settle}`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify(forwarded),
		});
		send(res, answer.status, await answer.json());
	};
	const hostOf = (req: IncomingMessage) => credentials.get(/^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
	const server = http.createServer((req, res) => {
		void (async () => {
			if (req.method !== "POST") return send(res, 405, { detail: "method not allowed" });
			const as = hostOf(req);
			if (!as) return send(res, 401, { detail: "Invalid or missing bot host credential" });
			const body = await readBody(req);
			if (req.url === "/internal/bot-hosts/reports") {
				const report = HostReport.safeParse(body);
				if (!report.success) {
					state.rejectedReports += 1;
					return send(res, 422, { detail: "invalid host report" });
				}
				if (report.data.host_id !== as) return send(res, 403, { detail: `This bot host credential is not ${report.data.host_id}'s` });
				if (state.reportStatus >= 300) {
					state.refusedReports += 1;
					return send(res, state.reportStatus, { detail: "not here" });
				}
				state.reports.push(report.data);
				return void res.writeHead(204).end();
			}
			const settle = /^\/internal\/bot-hosts\/queue\/messages\/(pull|ack)$/.exec(req.url ?? "")?.[1] as "pull" | "ack" | undefined;
			if (settle) return passOn(as, settle, body, res);
			if (req.url !== "/internal/bot-hosts/claims") return send(res, 404, { detail: "not found" });
			const parsed = ClaimRequest.safeParse(body);
			if (!parsed.success) return send(res, 422, { detail: "invalid claim" });
			const claim = parsed.data;
			const answer = (status: number, payload: unknown, reason?: ClaimRefusalReason) => {
				state.claims.push({ claim, status, as, ...(reason ? { reason } : {}) });
				send(res, status, payload);
			};
			if (claim.host_id !== as) return answer(403, { detail: `This bot host credential is not ${claim.host_id}'s` });
			if (failures.count > 0) {
				failures = { ...failures, count: failures.count - 1 };
				return answer(failures.status, { detail: "the room is busy" });
			}
			const meeting = meetings.get(claim.meeting_id);
			const refuse = (reason: ClaimRefusalReason, detail: string) => answer(409, { detail, reason }, reason);
			const { ticket } = claim;
			// The Worker's signature check, in effect: the ticket must be the room's, unchanged.
			const published = meeting?.ticket;
			const sameId = published?.ticket_id === ticket.ticket_id;
			if (
				ticket.meeting_id !== claim.meeting_id ||
				ticket.attempt !== claim.attempt ||
				(sameId && JSON.stringify(published) !== JSON.stringify(ticket))
			)
				return answer(403, { detail: "The spawn ticket is not a valid ticket for this claim" });
			if (!meeting || meeting.ended) return refuse("ended", "the meeting no longer wants a bot");
			if (claim.attempt < meeting.attempt) return refuse("stale", "a newer attempt exists");
			if (!sameId) return refuse("stale", `the ticket is not the one published for attempt ${meeting.attempt}`);
			if (meeting.claimedBy !== null) return refuse("taken", "another host claimed this attempt");
			meeting.claimedBy = claim.host_id;
			answer(200, { ...meeting.request, attempt: meeting.attempt });
		})().catch(() => {
			if (!res.headersSent) send(res, 500, { detail: "internal error" });
		});
	});
	const port = await listen(server);
	return Object.assign(state, {
		url: `http://127.0.0.1:${port}`,
		credentialFor(hostId: string) {
			for (const [credential, host] of credentials) if (host === hostId) credentials.delete(credential);
			const credential = `bhc_${randomBytes(32).toString("base64url")}`;
			credentials.set(credential, hostId);
			return credential;
		},
		offer(request: z.input<typeof SpawnRequest> & { attempt: number }, notAfter = new Date(Date.now() + 600_000).toISOString()) {
			const ticket: SpawnTicket = {
				meeting_id: request.meeting_id,
				attempt: request.attempt,
				not_after: notAfter,
				ticket_id: randomBytes(18).toString("base64url"),
				signature: randomBytes(32).toString("hex"),
			};
			meetings.set(request.meeting_id, { attempt: request.attempt, request, ticket, ended: false, claimedBy: null });
			return ticket;
		},
		end(meetingId: number) {
			const meeting = meetings.get(meetingId);
			if (meeting) meeting.ended = true;
		},
		failClaims(count: number, status: number) {
			failures = { count, status };
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	});
}

export type QueueMode = "up" | "failing" | "unreachable";

export interface CountingQueue {
	/** SPAWN_QUEUE_URL for `queueId`. */
	url(queueId: string): string;
	/** The batch_size of every pull, in order, per queue. */
	pulls(queueId: string): number[];
	publish(queueId: string, ticket: SpawnTicket): void;
	backlog(queueId: string): number;
	/** `failing`: pulls answer 500 with the API's envelope; `unreachable`: the connection is cut. */
	mode: QueueMode;
	/** How long a pull takes to answer (a slow API), so a host can be stopped with a pull in flight. */
	pullDelayMs: number;
	/** How many leases were handed back (retried) on this queue. */
	retries(queueId: string): number;
	close(): Promise<void>;
}

export async function startCountingQueue(token?: string): Promise<CountingQueue> {
	const queues = createLocalQueues();
	const handle = queueHandler(queues, { token });
	const pullsBy = new Map<string, number[]>();
	const state = { mode: "up" as QueueMode, pullDelayMs: 0 };
	const record = (queueId: string, batchSize: unknown) => {
		const list = pullsBy.get(queueId) ?? [];
		list.push(Number(batchSize));
		pullsBy.set(queueId, list);
	};
	const retriesBy = new Map<string, number>();
	const ack = queues.ack;
	queues.ack = (queueId, body = {}) => {
		retriesBy.set(queueId, (retriesBy.get(queueId) ?? 0) + (body.retries?.length ?? 0));
		return ack(queueId, body);
	};
	const pull = queues.pull;
	queues.pull = (queueId: string, body: { batch_size?: number } = {}) => {
		record(queueId, body.batch_size);
		return pull(queueId, body);
	};
	const server = http.createServer((req, res) => {
		const pulling = /\/queues\/([^/]+)\/messages\/pull$/.exec(req.url ?? "")?.[1];
		if (state.mode === "unreachable") {
			// Seen, then cut: the host hears a transport error, as from a queue it cannot reach.
			if (pulling) record(pulling, Number.NaN);
			return void req.socket.destroy();
		}
		void (async () => {
			if (pulling) {
				// Pulls are answered here, with the stand-in's own pull, so they can be slowed or refused.
				if (token && req.headers.authorization !== `Bearer ${token}`)
					return send(res, 401, { success: false, errors: [{ code: 10000, message: "Authentication error" }], messages: [], result: null });
				const body = ((await readBody(req)) ?? {}) as { batch_size?: number };
				if (state.mode === "failing") {
					// Counted as the real API would see it, then refused with its envelope.
					record(pulling, body.batch_size);
					return send(res, 500, { success: false, errors: [{ code: 10001, message: "internal error" }], messages: [], result: null });
				}
				const messages = queues.pull(pulling, body);
				// Leased now, answered later: the answer is in flight meanwhile.
				if (state.pullDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.pullDelayMs));
				return send(res, 200, { success: true, errors: [], messages: [], result: { messages } });
			}
			if (!(await handle(req, res))) send(res, 404, { success: false, errors: [], messages: [], result: null });
		})();
	});
	const port = await listen(server);
	return Object.assign(state, {
		url: (queueId: string) => `http://127.0.0.1:${port}/client/v4/accounts/local/queues/${queueId}`,
		pulls: (queueId: string) => pullsBy.get(queueId) ?? [],
		retries: (queueId: string) => retriesBy.get(queueId) ?? 0,
		publish: (queueId: string, ticket: SpawnTicket) => queues.publish(queueId, { body: ticket, content_type: "json" }),
		backlog: (queueId: string) => queues.backlog(queueId),
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	});
}
