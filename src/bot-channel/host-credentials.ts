/**
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
