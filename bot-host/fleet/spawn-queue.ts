/**
 * The spawn queue as a bot host reads it: Cloudflare Queues' pull-consumer REST API
 * (developers.cloudflare.com/queues/configuration/pull-consumers/). A host reaches it through
 * the Worker (`<gateway>/internal/bot-hosts/queue`, src/routes/bot-host-queue.ts), which speaks
 * the same shapes, with its own credential: it never holds the queue's token, and gets no
 * more tickets than the free slots it last reported. A pulled message is leased: acked, it is
 * gone; retried (or left past its visibility timeout), any host may take it again.
 */
import { SpawnTicket } from "../../src/bot-channel/fleet.ts";
import { errorText } from "../error-text.ts";

/** A ticket in hand, with the lease that acks or retries it. */
export interface LeasedTicket {
	ticket: SpawnTicket;
	leaseId: string;
	/** How many times the queue has delivered this message. */
	attempts: number;
}

/** The queue answered with an error or could not be reached: nothing was pulled or acked. */
export class QueueUnavailable extends Error {}

interface PulledMessage {
	lease_id?: unknown;
	body?: unknown;
	attempts?: unknown;
	metadata?: Record<string, unknown>;
}

export interface SpawnQueueOptions {
	/**
	 * The queue's REST base: `<gateway>/internal/bot-hosts/queue`, or for tests and benches a bare
	 * queue's `…/accounts/<account>/queues/<queue id>` (SPAWN_QUEUE_URL).
	 */
	url: string;
	/** The Bearer token: the host's own credential, asked for at every call (a rotated one takes effect at once). */
	token?: string | (() => string | null);
	log: (line: string) => void;
	/** Longest wait for one queue call. */
	timeoutMs?: number;
}

export class SpawnQueue {
	private readonly options: SpawnQueueOptions;

	constructor(options: SpawnQueueOptions) {
		this.options = { ...options, url: options.url.replace(/\/+$/, "") };
	}

	/**
	 * Leases up to `batchSize` tickets for `visibilityMs`. A message that is no spawn ticket is
	 * acked and dropped here: delivered again, it would be just as unreadable.
	 */
	async pull(batchSize: number, visibilityMs: number): Promise<LeasedTicket[]> {
		const result = await this.call("/messages/pull", { batch_size: batchSize, visibility_timeout_ms: visibilityMs });
		const messages = (result as { messages?: unknown } | null)?.messages;
		if (!Array.isArray(messages)) throw new QueueUnavailable("the queue's pull answer has no messages list");
		const tickets: LeasedTicket[] = [];
		const unreadable: string[] = [];
		for (const message of messages as PulledMessage[]) {
			if (typeof message.lease_id !== "string") continue;
			const ticket = SpawnTicket.safeParse(decodeBody(message));
			if (ticket.success) tickets.push({ ticket: ticket.data, leaseId: message.lease_id, attempts: Number(message.attempts) || 1 });
			else unreadable.push(message.lease_id);
		}
		if (unreadable.length > 0) {
			this.options.log(`spawn queue: dropping ${unreadable.length} message(s) that are not spawn tickets`);
			await this.settle({ acks: unreadable });
		}
		return tickets;
	}

	ack(leaseIds: string[]): Promise<void> {
		return this.settle({ acks: leaseIds });
	}

	/** Hands the tickets back to the queue, visible again after `delaySeconds`, for any host to take. */
	retry(leaseIds: string[], delaySeconds: number): Promise<void> {
		return this.settle({ retries: leaseIds, delaySeconds });
	}

	private async settle({ acks = [], retries = [], delaySeconds = 0 }: { acks?: string[]; retries?: string[]; delaySeconds?: number }) {
		if (acks.length === 0 && retries.length === 0) return;
		await this.call("/messages/ack", {
			acks: acks.map((lease_id) => ({ lease_id })),
			retries: retries.map((lease_id) => ({ lease_id, delay_seconds: delaySeconds })),
		});
	}

	private async call(path: string, body: unknown): Promise<unknown> {
		const { token: given } = this.options;
		const token = typeof given === "function" ? given() : given;
		let res: Response;
		try {
			res = await fetch(`${this.options.url}${path}`, {
				method: "POST",
				headers: {
					"content-type": "application/json",
					...(token ? { authorization: `Bearer ${token}` } : {}),
				},
				body: JSON.stringify(body),
				signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
			});
		} catch (err) {
			throw new QueueUnavailable(`the spawn queue is unreachable: ${errorText(err)}`);
		}
		const envelope = (await res.json().catch(() => null)) as {
			success?: boolean;
			result?: unknown;
			errors?: { message?: string }[];
		} | null;
		if (!res.ok || envelope?.success !== true) {
			const said = envelope?.errors?.[0]?.message;
			throw new QueueUnavailable(`the spawn queue answered ${res.status}${said ? ` (${said})` : ""}`);
		}
		return envelope.result ?? null;
	}
}

/** A json message arrives base64-encoded; a text one as is (then it must hold JSON). */
function decodeBody(message: PulledMessage): unknown {
	if (typeof message.body !== "string") return message.body;
	const contentType = message.metadata?.["CF-Content-Type"];
	try {
		const text = contentType === "text" ? message.body : Buffer.from(message.body, "base64").toString("utf8");
		return JSON.parse(text);
	} catch {
		return null;
	}
}
