import type { TicketGrant } from "../../src/gateway/tickets";
import { ACCOUNT_STORAGE } from "./storage";

const PREFIX = ACCOUNT_STORAGE.keys.ticketPrefix;

/**
 * The account's outstanding `/ws` tickets, by hash, in the account object's storage (so they
 * survive its eviction). Each names the key that asked for it: the key is checked again when
 * the ticket is redeemed, and signing out removes every ticket of that key.
 */
export class AccountTickets {
	constructor(private readonly storage: DurableObjectStorage) {}

	/** Stores a new ticket; expired ones are dropped on the way, which bounds what is kept. */
	async issue(ticketHash: string, grant: TicketGrant, nowMs: number): Promise<void> {
		const stale = [...(await this.all())].filter(([, g]) => g.expiresAt <= nowMs).map(([k]) => k);
		await this.deleteAll(stale);
		await this.storage.put(PREFIX + ticketHash, grant);
	}

	/**
	 * Takes the ticket out whatever happens next: one attempt per ticket. The delete is written
	 * before this returns and before any other call reaches the object, so two connects with the
	 * same ticket cannot both find it.
	 */
	async take(ticketHash: string, nowMs: number): Promise<TicketGrant | null> {
		const key = PREFIX + ticketHash;
		const grant = await this.storage.get<TicketGrant>(key);
		if (!grant) return null;
		await this.storage.delete(key);
		return grant.expiresAt > nowMs ? grant : null;
	}

	/** Removes every ticket the key `tokenId` asked for; returns how many. */
	async revokeFor(tokenId: number): Promise<number> {
		const mine = [...(await this.all())].filter(([, g]) => g.tokenId === tokenId).map(([k]) => k);
		await this.deleteAll(mine);
		return mine.length;
	}

	/** storage.delete takes at most 128 keys a call. */
	private async deleteAll(keys: string[]): Promise<void> {
		for (let i = 0; i < keys.length; i += 128) await this.storage.delete(keys.slice(i, i + 128));
	}

	private all(): Promise<Map<string, TicketGrant>> {
		return this.storage.list<TicketGrant>({ prefix: PREFIX });
	}
}
