import { eq } from "drizzle-orm";
import { db } from "../db";
import { users } from "../db/schema";
import type { Env } from "../env";
import type { CommitAuthor } from "./workspace-types";

/** The user as a commit author: their name (or email) and email, from the users table. */
export async function commitAuthorOf(env: Env, userId: number): Promise<CommitAuthor> {
	const user = await db(env).select({ email: users.email, name: users.name }).from(users).where(eq(users.id, userId)).get();
	if (!user) throw new Error(`user ${userId} not found`);
	return { name: user.name?.trim() || user.email, email: user.email };
}
