import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env";
import type { Scope } from "../../src/gateway/api-keys";
import type { RequestAdmission } from "../../src/gateway/identity";
import type { Admission } from "../../src/gateway/rate-limits";
import type { TicketGrant } from "../../src/gateway/tickets";
import type { WebhookEvent } from "../../src/webhooks/deliver";
import { AlarmTimers, sqlTimerStore, type TimerHandlers } from "../shared/alarm-timers";
import { type TokenBucket, takeToken } from "../shared/token-bucket";
import { BotSlots, type SlotClaim } from "./bot-slots";
import { AccountKeys, type KeyCheck } from "./keys";
import { AccountTickets } from "./tickets";
import { type EnqueueReport, WebhookOutbox } from "./webhook-outbox";

/** `webhook_outbox`: the outbox's earliest retry, as the outbox keeps it. */
type AccountTimer = "webhook_outbox";

/** The RPC surface: what Workers and other objects call on an account's stub (alarm is the runtime's). */
export const ACCOUNT_RPC = [
	"admitRequest",
	"issueTicket",
	"redeemTicket",
	"revokeTickets",
	"forgetKeys",
	"claimBotSlot",
	"bindBotSlot",
	"releaseBotSlot",
	"takeRequestToken",
	"enqueueWebhook",
	"takeWebhookEvents",
	"dropMeetingEvents",
] as const;

/**
 * One per user: the coordination points of an account. Calls into a Durable Object run one
 * at a time, so the bucket below is exact however many requests arrive together.
 */
export class AccountObject extends DurableObject<Env> {
	#bucket: TokenBucket | undefined;
	private readonly slots = new BotSlots(this.ctx.storage, this.env);
	private readonly keys = new AccountKeys(this.env);
	private readonly tickets = new AccountTickets(this.ctx.storage);
	private readonly outbox: WebhookOutbox = new WebhookOutbox(this.ctx.storage, this.env, {
		onScheduleChange: (): Promise<void> => this.#timers.arm(),
	});
	/** The account's timers on its one alarm (shared/alarm-timers.ts): the outbox's next attempt, so far. */
	readonly #timers: AlarmTimers<AccountTimer> = new AlarmTimers<AccountTimer>(this.ctx.storage, sqlTimerStore(this.ctx.storage), {
		derived: { webhook_outbox: () => this.outbox.nextDueAt() },
	});
	readonly #timerHandlers: TimerHandlers<AccountTimer> = { webhook_outbox: () => this.outbox.runDue() };

	/**
	 * Everything the gateway asks per request, in one call: is the key (still) one of this
	 * account's, does it hold a scope the route accepts, and is there a token in the bucket.
	 */
	async admitRequest(userId: number, tokenHash: string, accepted: readonly Scope[], rps: number, burst: number): Promise<RequestAdmission> {
		return this.#admit(await this.keys.check(userId, tokenHash, Date.now()), accepted, rps, burst);
	}

	#admit(check: KeyCheck, accepted: readonly Scope[], rps: number, burst: number): RequestAdmission {
		if (!check.ok) return { outcome: "invalid" };
		if (!check.identity.scopes.some((s) => accepted.includes(s))) return { outcome: "forbidden", scopes: check.identity.scopes };
		if (rps > 0) {
			const admission = this.takeRequestToken(rps, burst);
			if (!admission.allowed) return { outcome: "limited", retryAfterSeconds: admission.retryAfterSeconds };
		}
		return { outcome: "admitted", identity: check.identity };
	}

	/** Keeps a `/ws` ticket's hash for the key `grant` names (src/gateway/tickets.ts). */
	issueTicket(ticketHash: string, grant: TicketGrant): Promise<void> {
		return this.tickets.issue(ticketHash, grant, Date.now());
	}

	/**
	 * Redeems a ticket once: an unknown, used or expired ticket is `invalid`; otherwise the key
	 * that asked for it goes through the same checks as a key presented directly (still valid,
	 * scope, bucket), so a revoked or expired key's tickets are worthless.
	 */
	async redeemTicket(
		userId: number,
		ticketHash: string,
		accepted: readonly Scope[],
		rps: number,
		burst: number,
	): Promise<RequestAdmission> {
		const grant = await this.tickets.take(ticketHash, Date.now());
		if (!grant) return { outcome: "invalid" };
		return this.#admit(await this.keys.checkToken(userId, grant.tokenId, Date.now()), accepted, rps, burst);
	}

	/** Sign-out: every outstanding ticket of the key `tokenId` stops working. */
	revokeTickets(tokenId: number): Promise<number> {
		return this.tickets.revokeFor(tokenId);
	}

	/** The account or its keys changed: the next request reads them from D1 again. */
	forgetKeys(): void {
		this.keys.forget();
	}

	/** Holds a bot slot for a meeting link against the account's cap (see BotSlots). */
	claimBotSlot(link: string, cap: number): Promise<SlotClaim> {
		return this.slots.claim(link, cap);
	}

	bindBotSlot(link: string, meetingId: number): Promise<void> {
		return this.slots.bind(link, meetingId);
	}

	releaseBotSlot(link: string): Promise<void> {
		return this.slots.release(link);
	}

	/**
	 * The account's request bucket (shared/token-bucket.ts): `burst` tokens at most, refilled at
	 * `rps` per second. Takes `count` tokens, all or none (one request that carries several calls,
	 * an MCP batch, pays for each: src/gateway/identity.ts chargeCalls).
	 */
	takeRequestToken(rps: number, burst: number, count = 1): Admission {
		const taken = takeToken(this.#bucket, Date.now(), { perSecond: rps, burst }, count);
		this.#bucket = taken.bucket;
		return taken.admission;
	}

	/** Delivers a webhook event now; a retryable failure stays in the outbox for the alarm. */
	enqueueWebhook(userId: number, event: WebhookEvent): Promise<EnqueueReport> {
		return this.outbox.enqueue(userId, event);
	}

	/** Stores events for the alarm to deliver (a calendar sync's steps, many at once); returns how many were new. */
	takeWebhookEvents(userId: number, events: WebhookEvent[]): Promise<number> {
		return this.outbox.enqueueAll(userId, events);
	}

	/** A deleted meeting's webhook events not yet delivered go unsent (docs/retention.md); how many. */
	async dropMeetingEvents(meetingId: number): Promise<number> {
		const dropped = this.outbox.dropMeeting(meetingId);
		if (dropped > 0) await this.#timers.arm();
		return dropped;
	}

	override async alarm(): Promise<void> {
		await this.#timers.fire(this.#timerHandlers);
	}
}
