import type { Env } from "../src/env";

export type SlotClaim = { ok: true } | { ok: false; reason: "already_active" | "cap_reached" | "depleted"; cap: number; held: number };

/**
 * The account's running bots, keyed by meeting link (`platform:native_id`). Claims run inside
 * the Account object one at a time, so ten concurrent POST /bots against a cap of 2 start
 * exactly two bots. Before refusing for the cap, slots whose meeting has already ended in D1
 * are dropped, so a lost release never locks an account out for good.
 */
export class BotSlots {
	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly env: Env,
	) {}

	private async held(): Promise<Record<string, number | null>> {
		return (await this.storage.get<Record<string, number | null>>("botSlots")) ?? {};
	}

	async claim(link: string, cap: number): Promise<SlotClaim> {
		const slots = await this.held();
		if (link in slots) return { ok: false, reason: "already_active", cap, held: Object.keys(slots).length };
		if (cap <= 0) return { ok: false, reason: "depleted", cap, held: Object.keys(slots).length };
		if (Object.keys(slots).length >= cap) await this.dropEnded(slots);
		const held = Object.keys(slots).length;
		if (held >= cap) return { ok: false, reason: "cap_reached", cap, held };
		slots[link] = null;
		await this.storage.put("botSlots", slots);
		return { ok: true };
	}

	/** Records which meeting holds a claimed slot, so reconciliation can check it. */
	async bind(link: string, meetingId: number): Promise<void> {
		const slots = await this.held();
		if (!(link in slots)) return;
		slots[link] = meetingId;
		await this.storage.put("botSlots", slots);
	}

	async release(link: string): Promise<void> {
		const slots = await this.held();
		if (!(link in slots)) return;
		delete slots[link];
		await this.storage.put("botSlots", slots);
	}

	async count(): Promise<number> {
		return Object.keys(await this.held()).length;
	}

	private async dropEnded(slots: Record<string, number | null>): Promise<void> {
		const bound = Object.entries(slots).filter((e): e is [string, number] => e[1] !== null);
		if (bound.length === 0) return;
		const ids = bound.map(([, id]) => id);
		const open = new Set<number>();
		// In chunks: D1 binds at most 100 parameters, and a cap may be set up to 1,000.
		for (let i = 0; i < ids.length; i += 90) {
			const chunk = ids.slice(i, i + 90);
			const rows = await this.env.DB.prepare(
				`SELECT id FROM meetings WHERE id IN (${chunk.map(() => "?").join(",")}) AND status NOT IN ('completed', 'failed')`,
			)
				.bind(...chunk)
				.all<{ id: number }>();
			for (const row of rows.results) open.add(row.id);
		}
		for (const [link, id] of bound) if (!open.has(id)) delete slots[link];
		await this.storage.put("botSlots", slots);
	}
}
