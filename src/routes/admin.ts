import { createRoute, z } from "@hono/zod-openapi";
import { isoNow } from "../clock";
import type { ApiTokenRow, UserRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { invalidScopeDetail, isScope, parseStoredScopes, type Scope, splitScopes } from "../gateway/api-keys";
import { forgetKeys, listKeys, revokeKey, storeNewKey } from "../gateway/key-store";
import {
	addWorkspaceMember,
	findUser as findStoredUser,
	findUserByEmail,
	insertUser,
	listUsers,
	removeWorkspaceMember,
	updateUser,
} from "../gateway/user-store";
import { liveFeed } from "../objects";
import { setting } from "../settings/deployment-defaults";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** Accounts and keys, behind `X-Admin-API-Key` (checked by the gateway). */
export const adminRoutes = routeModule();

const User = z
	.object({
		id: z.number().int(),
		email: z.string(),
		name: z.string().nullable(),
		max_concurrent_bots: z.number().int(),
		data: z.record(z.string(), z.unknown()),
		created_at: z.string(),
	})
	.openapi("User");

const TokenMetadata = z
	.object({
		id: z.number().int(),
		user_id: z.number().int(),
		scopes: z.array(z.string()),
		name: z.string().nullable(),
		created_at: z.string(),
		expires_at: z.string().nullable(),
	})
	.openapi("TokenMetadata");

const MintedToken = TokenMetadata.extend({ token: z.string() }).openapi("MintedToken");

const UserIdParam = z.object({ user_id: z.coerce.number().int().positive() });

const toUser = (row: UserRow) => ({
	id: row.id,
	email: row.email,
	name: row.name,
	max_concurrent_bots: row.maxConcurrentBots,
	data: row.data,
	created_at: row.createdAt,
});

async function findUser(env: Env, userId: number): Promise<UserRow> {
	const row = await findStoredUser(env, userId);
	if (!row) throw notFound("User not found");
	return row;
}

adminRoutes.openapi(
	createRoute({
		method: "post",
		path: "/admin/users",
		request: {
			body: jsonBody(
				z.object({
					email: z.email().max(320),
					name: z.string().max(200).nullable().optional(),
					max_concurrent_bots: z.number().int().min(0).max(1000).optional(),
				}),
			),
		},
		responses: {
			200: jsonResponse(User, "Existing user for that email"),
			201: jsonResponse(User, "User created"),
		},
	}),
	async (c) => {
		const body = c.req.valid("json");
		const email = body.email.trim().toLowerCase();
		const existing = await findUserByEmail(c.env, email);
		if (existing) return c.json(toUser(existing), 200);
		const inserted = await insertUser(c.env, {
			email,
			name: body.name ?? null,
			maxConcurrentBots: body.max_concurrent_bots ?? setting(c.env, "DEFAULT_MAX_CONCURRENT_BOTS"),
			data: {},
			createdAt: isoNow(c.get("clock")),
		});
		// A concurrent create for the same email won the race: answer with that user.
		const user = inserted ?? (await findUserByEmail(c.env, email));
		if (!user) throw new ApiError(409, "User was created concurrently; retry");
		return c.json(toUser(user), inserted ? 201 : 200);
	},
);

adminRoutes.openapi(
	createRoute({
		method: "get",
		path: "/admin/users",
		request: {
			query: z.object({
				limit: z.coerce.number().int().min(1).max(500).default(100),
				offset: z.coerce.number().int().min(0).default(0),
			}),
		},
		responses: { 200: jsonResponse(z.array(User), "Users, oldest first") },
	}),
	async (c) => {
		const { limit, offset } = c.req.valid("query");
		const rows = await listUsers(c.env, limit, offset);
		return c.json(rows.map(toUser), 200);
	},
);

adminRoutes.openapi(
	createRoute({
		method: "get",
		path: "/admin/users/email/{email}",
		request: { params: z.object({ email: z.string().min(1).max(320) }) },
		responses: { 200: jsonResponse(User, "The user") },
	}),
	async (c) => {
		const email = c.req.valid("param").email.trim().toLowerCase();
		const row = await findUserByEmail(c.env, email);
		if (!row) throw notFound("User not found");
		return c.json(toUser(row), 200);
	},
);

adminRoutes.openapi(
	createRoute({
		method: "get",
		path: "/admin/users/{user_id}",
		request: { params: UserIdParam },
		responses: { 200: jsonResponse(User, "The user") },
	}),
	async (c) => c.json(toUser(await findUser(c.env, c.req.valid("param").user_id)), 200),
);

adminRoutes.openapi(
	createRoute({
		method: "patch",
		path: "/admin/users/{user_id}",
		request: {
			params: UserIdParam,
			body: jsonBody(
				z
					.strictObject({
						max_concurrent_bots: z.number().int().min(0).max(1000).optional(),
						data: z.record(z.string(), z.unknown()).optional(),
					})
					.refine((b) => b.max_concurrent_bots !== undefined || b.data !== undefined, {
						message: "At least one of max_concurrent_bots or data is required",
					}),
			),
		},
		responses: { 200: jsonResponse(User, "Updated user") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		const user = await findUser(c.env, c.req.valid("param").user_id);
		const updated = await updateUser(c.env, user.id, {
			...(body.max_concurrent_bots !== undefined ? { maxConcurrentBots: body.max_concurrent_bots } : {}),
			...(body.data !== undefined ? { data: { ...user.data, ...body.data } } : {}),
		});
		await forgetKeys(c.env, user.id);
		return c.json(toUser(updated ?? user), 200);
	},
);

const MintBody = z.object({
	scopes: z.union([z.string(), z.array(z.string())]).optional(),
	name: z.string().max(200).nullable().optional(),
	expires_in: z
		.number()
		.int()
		.positive()
		.max(10 * 365 * 86_400)
		.nullable()
		.optional(),
});

adminRoutes.openapi(
	createRoute({
		method: "post",
		path: "/admin/users/{user_id}/tokens",
		request: {
			params: UserIdParam,
			query: z.object({ scopes: z.string().optional(), scope: z.string().optional() }),
			body: { required: false, content: { "application/json": { schema: MintBody } } },
		},
		responses: { 201: jsonResponse(MintedToken, "The new key, shown in clear this once") },
	}),
	async (c) => {
		const query = c.req.valid("query");
		const body = c.req.valid("json");
		const requested = splitScopes(body.scopes ?? query.scopes ?? query.scope ?? "bot");
		const invalid = requested.filter((s) => !isScope(s));
		if (invalid.length > 0 || requested.length === 0) throw new ApiError(422, invalidScopeDetail(invalid.length ? invalid : [""]));
		const scopes = requested as Scope[];
		const user = await findUser(c.env, c.req.valid("param").user_id);
		const now = c.get("clock").now();
		const minted = await storeNewKey(c.env, {
			userId: user.id,
			scopes: scopes as [Scope, ...Scope[]],
			name: body.name ?? null,
			createdAt: now,
			expiresAt: body.expires_in ? new Date(now.getTime() + body.expires_in * 1000).toISOString() : null,
		});
		if (!minted) throw new ApiError(500, "Token was not stored");
		const { row, token } = minted;
		return c.json({ ...toTokenMetadata(row), token }, 201);
	},
);

const toTokenMetadata = (row: ApiTokenRow) => ({
	id: row.id,
	user_id: row.userId,
	scopes: parseStoredScopes(row.scopes),
	name: row.name,
	created_at: row.createdAt,
	expires_at: row.expiresAt,
});

adminRoutes.openapi(
	createRoute({
		method: "get",
		path: "/admin/users/{user_id}/tokens",
		request: { params: UserIdParam },
		responses: { 200: jsonResponse(z.array(TokenMetadata), "Key metadata; never the key") },
	}),
	async (c) => {
		const user = await findUser(c.env, c.req.valid("param").user_id);
		const rows = await listKeys(c.env, user.id);
		return c.json(rows.map(toTokenMetadata), 200);
	},
);

adminRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/admin/tokens/{token_id}",
		request: { params: z.object({ token_id: z.coerce.number().int().positive() }) },
		responses: { 204: { description: "Revoked; the key stops working at once" } },
	}),
	async (c) => {
		const { token_id } = c.req.valid("param");
		// Meeting streams and /ws sockets opened with the key end now, not when their reader next reconnects.
		if (!(await revokeKey(c.env, token_id))) throw notFound("Token not found");
		return c.body(null, 204);
	},
);

const MembershipParams = z.object({
	workspace_id: z.string().min(1).max(200),
	user_id: z.coerce.number().int().positive(),
});

adminRoutes.openapi(
	createRoute({
		method: "put",
		path: "/admin/workspaces/{workspace_id}/members/{user_id}",
		request: { params: MembershipParams },
		responses: { 204: { description: "The user is a member (idempotent); they now see the workspace's meetings" } },
	}),
	async (c) => {
		const { workspace_id, user_id } = c.req.valid("param");
		const user = await findUser(c.env, user_id);
		await addWorkspaceMember(c.env, workspace_id, user.id);
		return c.body(null, 204);
	},
);

adminRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/admin/workspaces/{workspace_id}/members/{user_id}",
		request: { params: MembershipParams },
		responses: { 204: { description: "Membership removed" } },
	}),
	async (c) => {
		const { workspace_id, user_id } = c.req.valid("param");
		if (!(await removeWorkspaceMember(c.env, workspace_id, user_id))) throw notFound("Workspace member not found");
		// Their open /ws subscriptions and meeting streams of the workspace's meetings end now, not at reconnect.
		await liveFeed(c.env, user_id).revalidate();
		return c.body(null, 204);
	},
);
