/**
 * How a bot host takes work: while it has free slots it pulls that many spawn tickets, claims
 * each attempt from the gateway, and starts a bot for every claim it wins. It never pulls more
 * than it could start, so a ticket it holds is one no other host can take meanwhile.
 *
 * Per ticket: past `not_after` → ack and drop (the room stopped waiting); claim won → start the
 * bot, ack; claim refused (409: a duplicate delivery, another host won, a newer attempt or
 * ticket, the meeting ended) → ack and drop; no answer, 5xx, or a refused credential or ticket
 * (401, 403) → hand the lease back with a short delay so any host can try again. An empty
 * queue or a failing queue API backs off (jittered).
 */
import type { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { errorText } from "../error-text.ts";
import type { Capacity } from "./capacity.ts";
import type { Gateway } from "./gateway.ts";
import { type LeasedTicket, QueueUnavailable, type SpawnQueue } from "./spawn-queue.ts";

export interface PullLoopSettings {
	/** How long a pulled ticket stays hidden from other hosts (visibility_timeout_ms). */
	visibilityMs?: number;
	/** Back-off after an empty pull or a queue error: from `backoffMinMs`, doubling, up to `backoffMaxMs`. */
	backoffMinMs?: number;
	backoffMaxMs?: number;
	/** How often a full host looks again for a free slot. */
	fullPollMs?: number;
	/** Delay before a ticket whose claim got no answer is visible again. */
	claimRetryDelayS?: number;
}

export const PULL_DEFAULTS = {
	visibilityMs: 60_000,
	// An idle host asks about four times a second at first and once a second at most: a ticket
	// waits under a second for its claim, at about one request a second per idle host.
	backoffMinMs: 250,
	backoffMaxMs: 1_000,
	fullPollMs: 1_000,
	claimRetryDelayS: 2,
} satisfies Required<PullLoopSettings>;

/** What the loop needs of the host. */
export interface WorkTaker {
	capacity(): Capacity;
	launch(request: SpawnRequest): unknown;
}

export interface PullLoopOptions extends PullLoopSettings {
	queue: SpawnQueue;
	gateway: Gateway;
	host: WorkTaker;
	hostId: string;
	version: string;
	log: (line: string) => void;
	now?: () => number;
}

export class PullLoop {
	private readonly options: PullLoopOptions;
	private readonly settings: Required<PullLoopSettings>;
	private stopped = false;
	private backoffMs: number;
	private wake: (() => void) | null = null;
	private running: Promise<void> | null = null;

	constructor(options: PullLoopOptions) {
		this.options = options;
		this.settings = {
			visibilityMs: options.visibilityMs ?? PULL_DEFAULTS.visibilityMs,
			backoffMinMs: options.backoffMinMs ?? PULL_DEFAULTS.backoffMinMs,
			backoffMaxMs: options.backoffMaxMs ?? PULL_DEFAULTS.backoffMaxMs,
			fullPollMs: options.fullPollMs ?? PULL_DEFAULTS.fullPollMs,
			claimRetryDelayS: options.claimRetryDelayS ?? PULL_DEFAULTS.claimRetryDelayS,
		};
		this.backoffMs = this.settings.backoffMinMs;
	}

	start(): void {
		this.running ??= this.run();
	}

	/** Stops pulling; tickets in hand go back to the queue for another host. Resolves when the loop is out. */
	async stop(): Promise<void> {
		this.stopped = true;
		this.wake?.();
		await this.running;
	}

	private async run(): Promise<void> {
		while (!this.stopped) {
			const free = this.options.host.capacity().free;
			if (free <= 0) {
				await this.sleep(this.settings.fullPollMs);
				continue;
			}
			let tickets: LeasedTicket[];
			try {
				tickets = await this.options.queue.pull(Math.min(free, 100), this.settings.visibilityMs);
			} catch (err) {
				// A bug must not end the loop: the host would sit idle while looking healthy.
				this.options.log(`pull loop: ${err instanceof QueueUnavailable ? err.message : `pull failed: ${String(err)}`}; backing off`);
				await this.backOff();
				continue;
			}
			if (tickets.length === 0) {
				await this.backOff();
				continue;
			}
			this.backoffMs = this.settings.backoffMinMs;
			await this.take(tickets);
		}
	}

	private async take(tickets: LeasedTicket[]): Promise<void> {
		const acks: string[] = [];
		const retries: string[] = [];
		/** Tickets a stopping host never claimed: visible again at once, for another host. */
		const handBack: string[] = [];
		await Promise.all(
			tickets.map(async ({ ticket, leaseId }) => {
				const label = `meeting ${ticket.meeting_id} attempt ${ticket.attempt}`;
				if (this.stopped || this.options.host.capacity().draining) return void handBack.push(leaseId);
				const notAfter = Date.parse(ticket.not_after);
				if (!Number.isFinite(notAfter) || notAfter < (this.options.now ?? Date.now)()) {
					this.options.log(`pull loop: ticket for ${label} expired at ${ticket.not_after}; dropped`);
					return void acks.push(leaseId);
				}
				// The ticket as pulled: the room takes only the one it signed and published for this attempt.
				const outcome = await this.options.gateway.claim({
					meeting_id: ticket.meeting_id,
					attempt: ticket.attempt,
					host_id: this.options.hostId,
					version: this.options.version,
					ticket,
				});
				if (outcome.kind === "unanswered") {
					this.options.log(`pull loop: claim for ${label} got no answer (${outcome.detail}); handed back`);
					return void retries.push(leaseId);
				}
				acks.push(leaseId);
				if (outcome.kind === "refused") return this.options.log(`pull loop: claim for ${label} refused (${outcome.reason}); dropped`);
				try {
					this.options.host.launch(outcome.request);
				} catch (err) {
					// The room holds the claim; without a bot it names the loss (failure_cause bot_host_lost) after its timeout.
					this.options.log(`pull loop: could not start the bot for ${label}: ${errorText(err)}`);
				}
			}),
		);
		try {
			if (acks.length > 0) await this.options.queue.ack(acks);
			if (retries.length > 0) await this.options.queue.retry(retries, this.settings.claimRetryDelayS);
			if (handBack.length > 0) await this.options.queue.retry(handBack, 0);
		} catch (err) {
			// Unsettled leases come back after their visibility timeout; a won claim then answers 409.
			this.options.log(`pull loop: could not settle leases: ${errorText(err)}`);
		}
	}

	private async backOff(): Promise<void> {
		const wait = Math.round(this.backoffMs * (0.75 + Math.random() * 0.5));
		this.backoffMs = Math.min(this.backoffMs * 2, this.settings.backoffMaxMs);
		await this.sleep(Math.min(wait, this.settings.backoffMaxMs));
	}

	private sleep(ms: number): Promise<void> {
		if (this.stopped) return Promise.resolve();
		return new Promise((resolve) => {
			const timer = setTimeout(() => {
				this.wake = null;
				resolve();
			}, ms);
			this.wake = () => {
				clearTimeout(timer);
				this.wake = null;
				resolve();
			};
		});
	}
}
