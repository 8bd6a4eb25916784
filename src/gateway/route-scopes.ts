import { TrieRouter } from "hono/router/trie-router";
import type { Scope } from "./api-keys";

/**
 * The one route-to-scope table. Deny by default: a path that is neither public, admin nor
 * listed here is unreachable (it answers 404, like any unknown route), even if a handler
 * for it is mounted. A test checks that every mounted route appears here or in PUBLIC.
 */
export type Access = { kind: "public" } | { kind: "admin" } | { kind: "key"; scopes: readonly Scope[] };

const ANY_KEY: Access = { kind: "key", scopes: ["bot", "tx", "browser"] };
const SETTINGS: Access = { kind: "key", scopes: ["bot", "tx"] };
const PUBLIC: Access = { kind: "public" };
const ADMIN: Access = { kind: "admin" };

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export const ROUTE_ACCESS: ReadonlyArray<readonly [Method, string, Access]> = [
	["GET", "/health", PUBLIC],
	["GET", "/openapi.json", PUBLIC],

	["POST", "/admin/users", ADMIN],
	["GET", "/admin/users", ADMIN],
	["GET", "/admin/users/email/:email", ADMIN],
	["GET", "/admin/users/:user_id", ADMIN],
	["PATCH", "/admin/users/:user_id", ADMIN],
	["POST", "/admin/users/:user_id/tokens", ADMIN],
	["GET", "/admin/users/:user_id/tokens", ADMIN],
	["DELETE", "/admin/tokens/:token_id", ADMIN],

	["GET", "/auth/me", ANY_KEY],
	["GET", "/user/models", SETTINGS],
	["PUT", "/user/models", SETTINGS],
	["GET", "/user/transcription", SETTINGS],
	["PUT", "/user/transcription", SETTINGS],
	["GET", "/user/webhook", SETTINGS],
	["PUT", "/user/webhook", SETTINGS],
	["GET", "/user/webhook/deliveries", SETTINGS],
];

const router = new TrieRouter<Access>();
for (const [method, path, access] of ROUTE_ACCESS) router.add(method, path, access);

export type AccessLookup = { found: true; access: Access } | { found: false; allowedMethods: Method[] };

/** Looks a request up in the table; when the path exists under other methods, says which. */
export function lookupAccess(method: string, path: string): AccessLookup {
	const verb = method === "HEAD" ? "GET" : method;
	const [matches] = router.match(verb, path);
	const first = matches[0];
	if (first) return { found: true, access: first[0] };
	const allowedMethods = (["GET", "POST", "PUT", "PATCH", "DELETE"] as const).filter(
		(m) => m !== verb && router.match(m, path)[0].length > 0,
	);
	return { found: false, allowedMethods };
}
