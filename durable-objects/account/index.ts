import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env";
import type { Scope } from "../../src/gateway/api-keys";
import type { Identity } from "../../src/gateway/identity";
import type { Admission } from "../../src/gateway/rate-limits";
import type { TicketGrant } from "../../src/gateway/tickets";
import type { WebhookEvent } from "../../src/webhooks/deliver";
import { BotSlots, type SlotClaim } from "./bot-slots";
import { AccountKeys, type KeyCheck } from "./keys";
import { AccountTickets } from "./tickets";
import { type EnqueueReport, WebhookOutbox } from "./webhook-outbox";

export type RequestAdmission =
	| { outcome: "admitted"; identity: Identity }
	| { outcome: "invalid" }
	| { outcome: "forbidden" }
	| { outcome: "limited"; retryAfterSeconds: number };

/**
 * One per user: the coordination points of an account. Calls into a Durable Object run one
 * at a time, so the bucket below is exact however many requests arrive together.
 */
export class AccountObject extends DurableObject<Env> {
	private bucket: { tokens: number; refilledAt: number } | undefined;
	private readonly slots = new BotSlots(this.ctx.storage, this.env);
	private readonly keys = new AccountKeys(this.env);
	private readonly tickets = new AccountTickets(this.ctx.storage);

	/**
	 * Everything the gateway asks per request, in one call: is the key (still) one of this
	 * account's, does it hold a scope the route accepts, and is there a token in the bucket.
	 */
	async admitRequest(userId: number, tokenHash: string, accepted: readonly Scope[], rps: number, burst: number): Promise<RequestAdmission> {
		return this.admit(await this.keys.check(userId, tokenHash, Date.now()), accepted, rps, burst);
	}

	private admit(check: KeyCheck, accepted: readonly Scope[], rps: number, burst: number): RequestAdmission {
		if (!check.ok) return { outcome: "invalid" };
		if (!check.identity.scopes.some((s) => accepted.includes(s))) return { outcome: "forbidden" };
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
		return this.admit(await this.keys.checkToken(userId, grant.tokenId, Date.now()), accepted, rps, burst);
	}

	/** Sign-out: every outstanding ticket of the key `tokenId` stops working. */
	revokeTickets(tokenId: number): Promise<number> {
		return this.tickets.revokeFor(tokenId);
	}

	/** The account or its keys changed: the next request reads them from D1 again. */
	forgetKeys(): void {
		this.keys.forget();
	}
	private readonly outbox = new WebhookOutbox(this.ctx.storage, this.env, { onScheduleChange: () => this.armAlarm() });

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
	 * Token bucket: `burst` tokens at most, refilled at `rps` per second. Takes `count` tokens,
	 * all or none (one request that carries several calls, an MCP batch, pays for each).
	 */
	takeRequestToken(rps: number, burst: number, count = 1): Admission {
		const now = Date.now();
		const bucket = this.bucket ?? { tokens: burst, refilledAt: now };
		bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.refilledAt) / 1000) * rps);
		bucket.refilledAt = now;
		this.bucket = bucket;
		if (bucket.tokens >= count) {
			bucket.tokens -= count;
			return { allowed: true, retryAfterSeconds: 0 };
		}
		return { allowed: false, retryAfterSeconds: (count - bucket.tokens) / rps };
	}

	/** Delivers a webhook event now; a retryable failure stays in the outbox for the alarm. */
	enqueueWebhook(userId: number, event: WebhookEvent): Promise<EnqueueReport> {
		return this.outbox.enqueue(userId, event);
	}

	/** Stores events for the alarm to deliver (a calendar sync's steps, many at once); returns how many were new. */
	takeWebhookEvents(userId: number, events: WebhookEvent[]): Promise<number> {
		return this.outbox.enqueueAll(userId, events);
	}

	override async alarm(): Promise<void> {
		await this.outbox.runDue();
		await this.armAlarm();
	}

	/** One alarm for every timer of the account: set to the earliest due time (the outbox's, so far). */
	private async armAlarm(): Promise<void> {
		const due = [this.outbox.nextDueAt()].filter((t): t is number => t !== null);
		if (due.length === 0) return this.ctx.storage.deleteAlarm();
		const at = Math.min(...due);
		if ((await this.ctx.storage.getAlarm()) !== at) await this.ctx.storage.setAlarm(at);
	}
}
