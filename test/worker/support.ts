import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import type { z } from "zod";
import type { Env } from "../../src/env";
import worker from "../../src/index";

export const ADMIN = { "X-Admin-API-Key": env.ADMIN_API_TOKEN ?? "" };

/** The user's AccountObject (bot slots, webhook outbox). */
export const accountOf = (userId: number) => env.ACCOUNT.get(env.ACCOUNT.idFromName(String(userId)));
export const roomOf = (id: number) => env.MEETING_ROOM.get(env.MEETING_ROOM.idFromName(String(id)));
export const streamOf = (id: number) => env.MEETING_STREAM.get(env.MEETING_STREAM.idFromName(String(id)));

let emailCounter = 0;

/** Calls the Worker the way a client over HTTP would. */
export function call(method: string, path: string, options: { headers?: Record<string, string>; json?: unknown; body?: BodyInit } = {}) {
	const headers = new Headers(options.headers);
	let body = options.body;
	if (options.json !== undefined) {
		headers.set("content-type", "application/json");
		body = JSON.stringify(options.json);
	}
	return SELF.fetch(`https://gateway.test${path}`, { method, headers, body });
}

/**
 * Calls the Worker straight, with deployment settings of the test's choosing over the test
 * bindings, and waits for what it left running (its waitUntil work) to end.
 */
export async function throughWorker(request: Request, deployment: Partial<Env> = {}): Promise<Response> {
	const ctx = createExecutionContext();
	const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...deployment } as Env, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
	return (await response.json()) as T;
}

export interface TestUser {
	id: number;
	email: string;
}

export async function createUser(fields: { email?: string; max_concurrent_bots?: number } = {}): Promise<TestUser> {
	emailCounter += 1;
	const email = fields.email ?? `user${emailCounter}-${crypto.randomUUID().slice(0, 8)}@example.com`;
	const res = await call("POST", "/admin/users", { headers: ADMIN, json: { ...fields, email } });
	if (res.status !== 201 && res.status !== 200) throw new Error(`create user: ${res.status} ${await res.text()}`);
	return json<TestUser>(res);
}

export async function mintKey(userId: number, scopes = "bot,tx"): Promise<string> {
	const res = await call("POST", `/admin/users/${userId}/tokens?scopes=${scopes}`, { headers: ADMIN });
	if (res.status !== 201) throw new Error(`mint key: ${res.status} ${await res.text()}`);
	return (await json<{ token: string }>(res)).token;
}

/** A fresh user with a key, for tests that only need a caller. */
export async function userWithKey(scopes = "bot,tx", fields: { max_concurrent_bots?: number } = {}) {
	const user = await createUser(fields);
	const key = await mintKey(user.id, scopes);
	return { user, key, headers: { "X-API-Key": key } };
}

/** Makes a user a workspace member through the admin API (binding a meeting needs membership). */
export async function joinWorkspace(workspaceId: string, userId: number): Promise<void> {
	const res = await call("PUT", `/admin/workspaces/${encodeURIComponent(workspaceId)}/members/${userId}`, { headers: ADMIN });
	if (res.status !== 204) throw new Error(`join workspace: ${res.status} ${await res.text()}`);
}

/** A fresh workspace whose members are these users (in that order); its id. */
export async function sharedWorkspace(...userIds: number[]): Promise<string> {
	const workspace = `team-${crypto.randomUUID()}`;
	for (const userId of userIds) await joinWorkspace(workspace, userId);
	return workspace;
}

/**
 * A body matches its documented schema exactly: parsing drops keys the schema does not name,
 * so equality after parsing means every field is documented and of the documented type.
 */
export async function expectDocumented<S extends z.ZodType>(schema: S, res: Response, status = 200): Promise<z.infer<S>> {
	expect(res.status, await res.clone().text()).toBe(status);
	const body = await res.json();
	const parsed = schema.safeParse(body);
	expect(parsed.error?.issues ?? []).toEqual([]);
	expect(parsed.data).toEqual(body);
	return parsed.data as z.infer<S>;
}
