/**
 * Signed spawn tickets (docs/bot-fleet.md#how-a-bot-is-placed). The room signs each ticket it
 * publishes, with a key derived (HKDF) from `SECRETS_KEY` that hosts never hold, and keeps its
 * random id; a claim must present that ticket. So a host (or anyone with the queue token) can
 * claim only an attempt whose ticket it actually pulled, never one it guessed by meeting id,
 * and a ticket it forged or edited is refused. The ticket stays free of secrets: a queue token
 * can read every queue of its account.
 */
import { base64url } from "../gateway/api-keys";
import { derivedHmacKey } from "../settings/derived-key";
import type { SpawnTicket } from "./fleet";

const encoder = new TextEncoder();
const signingKey = (secretsKey: string) => derivedHmacKey(secretsKey, "spawn-ticket/v1");

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** Each field in its own line: no value can run into the next, whatever it holds. */
const signedText = (t: Omit<SpawnTicket, "signature">) => `${t.meeting_id}\n${t.attempt}\n${t.not_after}\n${t.ticket_id}`;

/** A fresh ticket for one attempt of one meeting, with a new random id. */
export async function signSpawnTicket(
	secretsKey: string,
	fields: Pick<SpawnTicket, "meeting_id" | "attempt" | "not_after">,
): Promise<SpawnTicket> {
	const unsigned = { ...fields, ticket_id: base64url(crypto.getRandomValues(new Uint8Array(18))) };
	const mac = await crypto.subtle.sign("HMAC", await signingKey(secretsKey), encoder.encode(signedText(unsigned)));
	return { ...unsigned, signature: hex(mac) };
}

/** Whether the Worker signed this ticket, as it stands (any field changed breaks the signature). */
export async function spawnTicketSigned(secretsKey: string | undefined, ticket: SpawnTicket): Promise<boolean> {
	if (!secretsKey || !/^[0-9a-f]{64}$/.test(ticket.signature)) return false;
	const mac = new Uint8Array(ticket.signature.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
	return crypto.subtle.verify("HMAC", await signingKey(secretsKey), mac, encoder.encode(signedText(ticket)));
}
