import type { Env } from "../../src/env";
import { openMeetingIds } from "../../src/meetings/meeting-store";
import { ACCOUNT_STORAGE } from "./storage";

export type SlotClaim = { ok: true } | { ok: false; reason: "already_active" | "cap_reached" | "depleted"; cap: number; held: number };

/**
 * Who holds a slot: the meeting it was bound to, or, until the launch binds it, when it was
 * claimed (`null` is how older storage wrote an unbound slot).
 */
type Holder = number | { claimedAt: number } | null;

/** A launch binds its slot within seconds; one still unbound after this never will be. */
export const UNBOUND_SLOT_TTL_MS = 2 * 60_000;

/**
 * The account's running bots, keyed by meeting link (`platform:native_id`). Claims run inside
 * the Account object one at a time, so ten concurrent POST /bots against a cap of 2 start
 * exactly two bots. Before refusing, slots that can no longer be in use are dropped: ones whose
 * meeting has already ended in D1, and ones a failed launch left unbound, so a lost release
 * never locks an account or a link out for good.
 */
export class BotSlots {
	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly env: Env,
	) {}

	private async held(): Promise<Record<string, Holder>> {
		return (await this.storage.get<Record<string, Holder>>(ACCOUNT_STORAGE.keys.botSlots)) ?? {};
	}

	async claim(link: string, cap: number): Promise<SlotClaim> {
		const slots = await this.held();
		if (link in slots || Object.keys(slots).length >= cap) await this.dropStale(slots, Date.now());
		if (link in slots) return { ok: false, reason: "already_active", cap, held: Object.keys(slots).length };
		if (cap <= 0) return { ok: false, reason: "depleted", cap, held: Object.keys(slots).length };
		const held = Object.keys(slots).length;
		if (held >= cap) return { ok: false, reason: "cap_reached", cap, held };
		slots[link] = { claimedAt: Date.now() };
		await this.storage.put(ACCOUNT_STORAGE.keys.botSlots, slots);
		return { ok: true };
	}

	/** Records which meeting holds a claimed slot, so reconciliation can check it. */
	async bind(link: string, meetingId: number): Promise<void> {
		const slots = await this.held();
		if (!(link in slots)) return;
		slots[link] = meetingId;
		await this.storage.put(ACCOUNT_STORAGE.keys.botSlots, slots);
	}

	async release(link: string): Promise<void> {
		const slots = await this.held();
		if (!(link in slots)) return;
		delete slots[link];
		await this.storage.put(ACCOUNT_STORAGE.keys.botSlots, slots);
	}

	async count(): Promise<number> {
		return Object.keys(await this.held()).length;
	}

	/** Drops unbound slots past their time and slots whose meeting has ended in D1. */
	private async dropStale(slots: Record<string, Holder>, nowMs: number): Promise<void> {
		for (const [link, holder] of Object.entries(slots)) {
			if (holder === null) slots[link] = { claimedAt: nowMs };
			else if (typeof holder === "object" && nowMs - holder.claimedAt > UNBOUND_SLOT_TTL_MS) delete slots[link];
		}
		const bound = Object.entries(slots).filter((e): e is [string, number] => typeof e[1] === "number");
		const ids = bound.map(([, id]) => id);
		const open = await openMeetingIds(this.env, ids);
		for (const [link, id] of bound) if (!open.has(id)) delete slots[link];
		await this.storage.put(ACCOUNT_STORAGE.keys.botSlots, slots);
	}
}
