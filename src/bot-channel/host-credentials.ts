/**
 * Raw SQL store (its table is not in the drizzle schema).
 * Bot host credentials (docs/bot-fleet.md#host-credentials). Each host has its own, minted by an
 * admin (`POST /admin/bot-hosts`) and stored only as its SHA-256 hash, like an API key. A
 * credential names one host: it claims and reports as that host and no other, and once revoked
 * it stops working at once (every call reads D1; nothing is cached).
 */
import type { Env } from "../env";
import { ApiError } from "../errors";
import { base64url, hashApiKey } from "../gateway/api-keys";

/** `bhc_<43 chars of base64url over 32 random bytes>`; shown once, when minted. */
export function mintHostCredential(): string {
	return `bhc_${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** The host a request's Bearer credential belongs to; 401 for a missing, unknown or revoked one. */
export async function credentialHost(env: Env, authorization: string | undefined): Promise<string> {
	const presented = authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
	const row = presented
		? await env.DB.prepare("SELECT host_id FROM bot_host_credentials WHERE credential_hash = ?")
				.bind(await hashApiKey(presented))
				.first<{ host_id: string }>()
		: null;
	if (!row) throw new ApiError(401, "Invalid or missing bot host credential");
	return row.host_id;
}

/** A host speaks only for itself: 403 when the body names another host than the credential's. */
export function requireSameHost(credentialHostId: string, named: string): void {
	if (credentialHostId !== named) throw new ApiError(403, `This bot host credential is not ${named}'s`);
}

/** Stores the hash of a host's new credential; minting again for the same host replaces (rotates) it. */
export async function storeHostCredential(env: Env, hostId: string, credential: string, createdAt: string): Promise<void> {
	await env.DB.prepare(
		`INSERT INTO bot_host_credentials (host_id, credential_hash, created_at) VALUES (?, ?, ?)
		 ON CONFLICT (host_id) DO UPDATE SET credential_hash = excluded.credential_hash, created_at = excluded.created_at`,
	)
		.bind(hostId, await hashApiKey(credential), createdAt)
		.run();
}

export async function listHostCredentials(env: Env, limit: number, offset: number): Promise<{ host_id: string; created_at: string }[]> {
	const { results } = await env.DB.prepare("SELECT host_id, created_at FROM bot_host_credentials ORDER BY host_id LIMIT ? OFFSET ?")
		.bind(limit, offset)
		.all<{ host_id: string; created_at: string }>();
	return results;
}

/** Deletes the host's credential; false when it had none. */
export async function revokeHostCredential(env: Env, hostId: string): Promise<boolean> {
	return (await env.DB.prepare("DELETE FROM bot_host_credentials WHERE host_id = ? RETURNING host_id").bind(hostId).first()) !== null;
}
