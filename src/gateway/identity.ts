import type { Env } from "../env";
import { errorName } from "../error-text";
import { ApiError } from "../errors";
import { accountObject } from "../objects";
import { setting } from "../settings/deployment-defaults";
import { hashApiKey, type Scope, scopeRefusal } from "./api-keys";
import { keyOwner } from "./key-store";
import type { Admission } from "./rate-limits";
import { hashTicket, ticketOwner } from "./tickets";

/** Who is calling, derived only from the API key. */
export interface Identity {
	userId: number;
	email: string;
	scopes: Scope[];
	maxConcurrent: number;
	tokenId: number;
	/** When the calling key expires (ms since the epoch); null for a key that never does. */
	keyExpiresAt: number | null;
}

/** What the account answers a key's request with (AccountObject.admitRequest): who is calling, or why not. */
export type RequestAdmission =
	| { outcome: "admitted"; identity: Identity }
	| { outcome: "invalid" }
	| { outcome: "forbidden"; scopes: Scope[] }
	| { outcome: "limited"; retryAfterSeconds: number };

/**
 * Which account a key hash belongs to. A key never changes owner, so this is safe to keep in
 * the isolate; whether the key is still valid is decided by the account object every time.
 */
const ownerOfKey = new Map<string, number>();
const OWNER_CACHE_LIMIT = 10_000;

const unavailable = () => new ApiError(503, "Identity service unavailable, try again shortly", { "Retry-After": "5" });

async function ownerOf(env: Env, hash: string): Promise<number | null> {
	const cached = ownerOfKey.get(hash);
	if (cached) return cached;
	let userId: number | null;
	try {
		userId = await keyOwner(env, hash);
	} catch (err) {
		console.error("identity store unavailable", errorName(err));
		throw unavailable();
	}
	if (userId === null) return null;
	if (ownerOfKey.size >= OWNER_CACHE_LIMIT) ownerOfKey.clear();
	ownerOfKey.set(hash, userId);
	return userId;
}

/**
 * The gateway's whole question about a key, for a route (`route`, e.g. `POST /bots`, named in a
 * 403) that accepts `accepted` scopes:
 * 401 for a missing, unknown, revoked or expired key; 403 for a key without the scope; 429
 * when the account's bucket is empty; 503 with Retry-After when the answer cannot be had
 * (never a 401 then). One call to the account object once the key's owner is known.
 */
export async function authenticate(env: Env, key: string | null | undefined, accepted: readonly Scope[], route: string): Promise<Identity> {
	if (!key) throw new ApiError(401, "Missing API key");
	const hash = await hashApiKey(key);
	const userId = await ownerOf(env, hash);
	if (userId === null) throw new ApiError(401, "Invalid API key");
	const admission = await askAccount(() => accountObject(env, userId).admitRequest(userId, hash, accepted, ...bucketOf(env)));
	if (admission.outcome === "invalid") {
		ownerOfKey.delete(hash);
		throw new ApiError(401, "Invalid API key");
	}
	return admitted(admission, accepted, route);
}

/**
 * The same question for a `/ws` ticket (src/gateway/tickets.ts), asked of the key that took
 * the ticket: the ticket is spent by asking, and anything wrong with it (unknown, used,
 * expired, or its key revoked or expired) is one 401, so a refusal says nothing about which.
 */
export async function authenticateTicket(env: Env, ticket: string, accepted: readonly Scope[], route: string): Promise<Identity> {
	const userId = ticketOwner(ticket);
	if (userId === null) throw new ApiError(401, INVALID_TICKET);
	const hash = await hashTicket(ticket);
	const admission = await askAccount(() => accountObject(env, userId).redeemTicket(userId, hash, accepted, ...bucketOf(env)));
	if (admission.outcome === "invalid") throw new ApiError(401, INVALID_TICKET);
	return admitted(admission, accepted, route);
}

export const INVALID_TICKET = "Invalid or expired ticket";

/**
 * One request that carries `calls` calls (an MCP batch) pays for each from the account's
 * bucket: the gateway took one token for the request, this takes the rest, all or none. A
 * batch larger than the burst could never pass and is refused with 400; one past what is left
 * gets the 429 of any request.
 */
export async function chargeCalls(env: Env, userId: number, calls: number): Promise<void> {
	const [rps, burst] = bucketOf(env);
	if (rps <= 0 || calls <= 1) return;
	if (calls > burst) {
		throw new ApiError(
			400,
			`A batch of ${calls} calls is more than the ${Math.floor(burst)} this key may make at once; send smaller batches`,
		);
	}
	const admission = await askAccount<Admission>(() => accountObject(env, userId).takeRequestToken(rps, burst, calls - 1));
	if (!admission.allowed) throw rateLimited(admission.retryAfterSeconds);
}

const bucketOf = (env: Env): [number, number] => [setting(env, "GATEWAY_RATE_LIMIT_RPS"), setting(env, "GATEWAY_RATE_LIMIT_BURST")];

const rateLimited = (retryAfterSeconds: number) =>
	new ApiError(429, "Rate limit exceeded", { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });

/** Asks the account object; unreachable is a 503, never a refusal. */
async function askAccount<T = RequestAdmission>(ask: () => Promise<NoInfer<T>>): Promise<T> {
	try {
		return await ask();
	} catch (err) {
		console.error("account check unavailable", errorName(err));
		throw unavailable();
	}
}

function admitted(admission: Exclude<RequestAdmission, { outcome: "invalid" }>, accepted: readonly Scope[], route: string): Identity {
	switch (admission.outcome) {
		case "admitted":
			return admission.identity;
		case "forbidden":
			throw new ApiError(403, scopeRefusal(accepted, admission.scopes, route));
		case "limited":
			throw rateLimited(admission.retryAfterSeconds);
	}
}
