import { base64url, hashApiKey } from "./api-keys";

/**
 * Tickets for `/ws` from a browser (docs/dashboard.md#signing-in). A browser cannot put a
 * header on a WebSocket, and a key in `?api_key=` would land in URLs and access logs; so the
 * dashboard trades its key for a ticket that works once, within seconds, and only while the
 * key that asked for it still works.
 *
 * `wst_<user id>_<43 chars of base64url over 32 random bytes>`: the user id names the account
 * object that holds the ticket's hash; it grants nothing, the random part is the secret.
 */
const TICKET = /^wst_([1-9][0-9]{0,15})_([A-Za-z0-9_-]{43})$/;

export function mintTicket(userId: number): string {
	return `wst_${userId}_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** The account a ticket names, or null for anything that is not shaped like a ticket. */
export function ticketOwner(ticket: string): number | null {
	const match = TICKET.exec(ticket);
	if (!match?.[1]) return null;
	const userId = Number(match[1]);
	return Number.isSafeInteger(userId) ? userId : null;
}

/** Tickets are stored only as this hash (the same SHA-256 as keys). */
export const hashTicket = hashApiKey;

/** What the account object keeps per outstanding ticket. */
export interface TicketGrant {
	/** The key that asked for it (its `api_tokens.id`), checked again at redemption. */
	tokenId: number;
	expiresAt: number;
}
