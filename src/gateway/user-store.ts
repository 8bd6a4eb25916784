/**
 * Drizzle store: accounts (the `users` table) and their workspace memberships, as the admin
 * routes, launch's cap check and the workspace's commit author read and write them.
 */
import { and, asc, eq } from "drizzle-orm";
import { db } from "../db";
import { type UserRow, users, workspaceMembers } from "../db/schema";
import type { Env } from "../env";

export async function findUser(env: Env, userId: number): Promise<UserRow | undefined> {
	return db(env).select().from(users).where(eq(users.id, userId)).get();
}

/** `email` as stored (trimmed and lower-cased by the caller). */
export async function findUserByEmail(env: Env, email: string): Promise<UserRow | undefined> {
	return db(env).select().from(users).where(eq(users.email, email)).get();
}

/** Users in id order, a page at a time. */
export async function listUsers(env: Env, limit: number, offset: number): Promise<UserRow[]> {
	return db(env).select().from(users).orderBy(asc(users.id)).limit(limit).offset(offset).all();
}

/** Inserts a user; undefined when one with that email already exists (a concurrent create won). */
export async function insertUser(env: Env, values: typeof users.$inferInsert): Promise<UserRow | undefined> {
	return db(env).insert(users).values(values).onConflictDoNothing().returning().get();
}

/** Writes the given columns of a user; the user as written, or undefined when there is none. */
export async function updateUser(
	env: Env,
	userId: number,
	values: Partial<Pick<typeof users.$inferInsert, "maxConcurrentBots" | "data">>,
): Promise<UserRow | undefined> {
	return db(env).update(users).set(values).where(eq(users.id, userId)).returning().get();
}

/** The account's current cap (auto-join has no request identity to take it from); 0 when there is no such account. */
export async function accountCap(env: Env, userId: number): Promise<number> {
	const row = await db(env).select({ cap: users.maxConcurrentBots }).from(users).where(eq(users.id, userId)).get();
	return row?.cap ?? 0;
}

/** Makes the user a member of the workspace (idempotent). */
export async function addWorkspaceMember(env: Env, workspaceId: string, userId: number): Promise<void> {
	await db(env).insert(workspaceMembers).values({ workspaceId, userId }).onConflictDoNothing();
}

/** Ends a membership; false when there was none. */
export async function removeWorkspaceMember(env: Env, workspaceId: string, userId: number): Promise<boolean> {
	const deleted = await db(env)
		.delete(workspaceMembers)
		.where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))
		.returning({ userId: workspaceMembers.userId })
		.get();
	return deleted !== undefined;
}
