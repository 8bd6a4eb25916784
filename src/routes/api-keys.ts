import { createRoute, z } from "@hono/zod-openapi";
import type { ApiTokenRow } from "../db/schema";
import { ApiError, invalidField, notFound } from "../errors";
import { invalidScopeDetail, isScope, parseStoredScopes, type Scope, splitScopes } from "../gateway/api-keys";
import { findKey, listKeys, maskedHint, revokeKey, storeNewKey } from "../gateway/key-store";
import { setting } from "../settings/deployment-defaults";
import { ApiErrorBody, jsonResponse, routeModule } from "./openapi-app";

/** A user's own API keys (docs/api.md#your-own-api-keys): list, mint, revoke, never beyond the calling key's scopes. */
export const apiKeyRoutes = routeModule();

/** The longest a self-minted key may live; an operator mints longer ones through the admin API. */
export const MAX_KEY_LIFETIME_DAYS = 365;
/**
 * A self-minted key asked for no expiry lives this long (or less, with its minter's): no key a
 * user mints lasts forever, so a leaked key cannot leave lasting keys behind it.
 */
export const DEFAULT_KEY_LIFETIME_DAYS = 90;
/** Keys one list answer shows, newest first: live keys are capped lower, so only old expired ones fall off. */
export const KEY_LIST_LIMIT = 200;
const DAY_MS = 86_400_000;

const ApiKey = z
	.object({
		id: z.number().int(),
		name: z.string().nullable(),
		scopes: z.array(z.string()),
		key_hint: z
			.string()
			.nullable()
			.openapi({ description: "`****` and the key's last 4 characters; null for keys minted before hints were kept" }),
		created_at: z.string(),
		expires_at: z.string().nullable(),
		current: z.boolean().openapi({ description: "This is the key the request was made with" }),
		minted_by: z.number().int().nullable().openapi({
			description:
				"The id of the key that minted this one (POST /auth/keys); revoking that key revokes this one. Null for keys the operator minted",
		}),
	})
	.openapi("ApiKey");

const MintedApiKey = ApiKey.extend({
	token: z.string().openapi({ description: "The key in clear: shown this once, only its hash is kept" }),
}).openapi("MintedApiKey");

const MintRequest = z
	.strictObject({
		name: z
			.string()
			.trim()
			.min(1)
			.max(100)
			.regex(/^[^\p{Cc}]*$/u, "must not contain control characters")
			.nullable()
			.optional(),
		scopes: z
			.union([z.string().max(100), z.array(z.string().max(20)).max(10)])
			.optional()
			.openapi({ description: "A subset of the calling key's scopes; default: all of them" }),
		expires_at: z.iso
			.datetime({ offset: true })
			.nullable()
			.optional()
			.openapi({
				description: `ISO 8601, in the future and at most ${MAX_KEY_LIFETIME_DAYS} days ahead; default ${DEFAULT_KEY_LIFETIME_DAYS} days ahead, or the calling key's expiry when sooner`,
			}),
		expires_in_days: z.number().int().min(1).max(MAX_KEY_LIFETIME_DAYS).nullable().optional(),
	})
	.openapi("MintApiKeyRequest");

const keyErrors = {
	401: jsonResponse(ApiErrorBody, "No valid API key"),
	403: jsonResponse(ApiErrorBody, "The key lacks the bot or tx scope"),
	429: jsonResponse(ApiErrorBody, "The account's request bucket is empty"),
};

const toApiKey = (row: ApiTokenRow, currentTokenId: number) => ({
	id: row.id,
	name: row.name,
	scopes: parseStoredScopes(row.scopes),
	key_hint: maskedHint(row.keyHint),
	created_at: row.createdAt,
	expires_at: row.expiresAt,
	current: row.id === currentTokenId,
	minted_by: row.mintedBy,
});

apiKeyRoutes.openapi(
	createRoute({
		method: "get",
		path: "/auth/keys",
		description: `The caller's API keys, newest first (at most ${KEY_LIST_LIMIT}), masked: never a key or its hash.`,
		responses: { 200: jsonResponse(z.object({ keys: z.array(ApiKey) }), "The caller's keys"), ...keyErrors },
	}),
	async (c) => {
		const me = c.get("identity");
		const rows = await listKeys(c.env, me.userId, KEY_LIST_LIMIT);
		return c.json({ keys: rows.map((row) => toApiKey(row, me.tokenId)) }, 200);
	},
);

/** The scopes asked for, checked against the vocabulary (422) and against the calling key's own (403). */
function requestedScopes(asked: string | string[] | undefined, held: readonly Scope[]): [Scope, ...Scope[]] {
	const names = asked === undefined ? [...held] : splitScopes(asked);
	const invalid = names.filter((s) => !isScope(s));
	if (invalid.length > 0 || names.length === 0) throw new ApiError(422, invalidScopeDetail(invalid.length ? invalid : [""]));
	const beyond = names.filter((s) => !held.includes(s as Scope));
	if (beyond.length > 0) {
		throw new ApiError(
			403,
			`A key can mint keys only with its own scopes (${held.join(", ")}); this one lacks ${beyond.join(", ")}. Sign in with a key that has them.`,
		);
	}
	return names as [Scope, ...Scope[]];
}

/**
 * When the new key expires; a 422 on the field for a past or too distant time. Asked for none,
 * it lives DEFAULT_KEY_LIFETIME_DAYS. A key never outlives the key that mints it
 * (`callerExpiresAt`): the default is cut to the caller's expiry, and a later one asked for is
 * refused, so a short-lived key cannot make itself a lasting one.
 */
function expiryOf(body: z.infer<typeof MintRequest>, now: Date, callerExpiresAt: number | null): string {
	const latest = now.getTime() + MAX_KEY_LIFETIME_DAYS * DAY_MS;
	if (body.expires_at != null && body.expires_in_days != null) {
		throw invalidField(["body", "expires_in_days"], "Give expires_at or expires_in_days, not both");
	}
	const field = body.expires_in_days != null ? "expires_in_days" : "expires_at";
	let at: number | null = null;
	if (body.expires_in_days != null) at = now.getTime() + body.expires_in_days * DAY_MS;
	else if (body.expires_at != null) {
		at = Date.parse(body.expires_at);
		if (at <= now.getTime()) throw invalidField(["body", "expires_at"], "must be in the future");
		if (at > latest) throw invalidField(["body", "expires_at"], `must be at most ${MAX_KEY_LIFETIME_DAYS} days ahead`);
	}
	if (at === null) {
		const byDefault = now.getTime() + DEFAULT_KEY_LIFETIME_DAYS * DAY_MS;
		return new Date(callerExpiresAt === null ? byDefault : Math.min(byDefault, callerExpiresAt)).toISOString();
	}
	if (callerExpiresAt !== null && at > callerExpiresAt) {
		throw invalidField(
			["body", field],
			`must not be after the calling key's own expiry (${new Date(callerExpiresAt).toISOString()}): a key never outlives the key that mints it`,
		);
	}
	return new Date(at).toISOString();
}

apiKeyRoutes.openapi(
	createRoute({
		method: "post",
		path: "/auth/keys",
		description:
			"Mints a key for the caller with a subset of the calling key's scopes (default: the same), an optional name and expiry. " +
			`Without an expiry it lives ${DEFAULT_KEY_LIFETIME_DAYS} days; it never outlives the calling key (a later expiry is a 422), ` +
			"and revoking the calling key revokes it. The key is in the answer this once.",
		request: { body: { required: false, content: { "application/json": { schema: MintRequest } } } },
		responses: {
			201: jsonResponse(MintedApiKey, "The new key, shown in clear this once"),
			...keyErrors,
			409: jsonResponse(ApiErrorBody, "The caller already has the most live keys allowed (MAX_API_KEYS_PER_USER)"),
			422: jsonResponse(ApiErrorBody, "An unknown scope, a bad name, or an expiry in the past or too far ahead"),
		},
	}),
	async (c) => {
		const body = c.req.valid("json") ?? {};
		const me = c.get("identity");
		const scopes = requestedScopes(body.scopes, me.scopes);
		const now = c.get("clock").now();
		const expiresAt = expiryOf(body, now, me.keyExpiresAt);
		const cap = setting(c.env, "MAX_API_KEYS_PER_USER");
		const minted = await storeNewKey(c.env, {
			userId: me.userId,
			scopes,
			name: body.name ?? null,
			createdAt: now,
			expiresAt,
			liveCap: cap,
			mintedBy: me.tokenId,
		});
		if (!minted) throw new ApiError(409, `You have ${cap} live API keys, the most allowed; revoke one first`);
		return c.json({ ...toApiKey(minted.row, me.tokenId), token: minted.token }, 201);
	},
);

apiKeyRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/auth/keys/{key_id}",
		description:
			"Revokes one of the caller's keys, and every key it minted (and theirs): they stop working at once, and streams and " +
			"`/ws` connections opened with them end. A key revokes only keys with no scope it lacks (403 otherwise). " +
			"The calling key may revoke itself; its next request gets 401.",
		request: { params: z.object({ key_id: z.coerce.number().int().positive() }) },
		responses: {
			204: { description: "Revoked, with the keys it minted" },
			...keyErrors,
			403: jsonResponse(ApiErrorBody, "The calling key lacks bot or tx, or a scope the key to revoke has"),
			404: jsonResponse(ApiErrorBody, "No such key of the caller's"),
		},
	}),
	async (c) => {
		const me = c.get("identity");
		const keyId = c.req.valid("param").key_id;
		const target = await findKey(c.env, keyId, me.userId);
		if (!target) throw notFound("API key not found");
		const beyond = parseStoredScopes(target.scopes).filter((s) => !me.scopes.includes(s));
		if (beyond.length > 0) {
			throw new ApiError(
				403,
				`A key can revoke only keys with no scope it lacks (${me.scopes.join(", ")}); key ${keyId} also has ${beyond.join(", ")}. Sign in with a key that has them.`,
			);
		}
		if (!(await revokeKey(c.env, keyId, me.userId))) throw notFound("API key not found");
		return c.body(null, 204);
	},
);
