/**
 * The keys a user's /ws sockets were opened with (each socket's tag names its key and the key's
 * expiry). A socket lives only as long as its key: revoking the key (LiveFeed.revalidate) or
 * reaching its expiry (the feed's `key_expiry` timer, due at the earliest one) ends it.
 */
import { keysStandingNow } from "../../src/agent/caller";
import type { Env } from "../../src/env";
import { tagOf } from "./subscriptions";

export interface KeyedSocket {
	socket: WebSocket;
	userId: number;
	tokenId: number;
}

export class SocketKeys {
	constructor(
		private readonly ctx: DurableObjectState,
		private readonly env: Env,
	) {}

	/** Open sockets whose key no longer stands (revoked, or past its expiry). */
	async ended(): Promise<KeyedSocket[]> {
		const keyed = this.#open().flatMap((socket) => {
			const tag = tagOf(socket);
			return tag?.tokenId ? [{ socket, userId: tag.userId, tokenId: tag.tokenId }] : [];
		});
		if (keyed.length === 0) return [];
		const standing = await keysStandingNow(this.env, keyed);
		return keyed.filter((k) => !standing.has(k.tokenId));
	}

	/** The earliest expiry among open sockets' keys (the feed's `key_expiry` timer); null when none expires. */
	earliestExpiry(): number | null {
		const expiries = this.#open().flatMap((socket) => tagOf(socket)?.keyExpiresAt ?? []);
		return expiries.length === 0 ? null : Math.min(...expiries);
	}

	#open(): WebSocket[] {
		return this.ctx.getWebSockets().filter((s) => s.readyState === WebSocket.OPEN);
	}
}
