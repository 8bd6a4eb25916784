import type { Env } from "../env";
import { findUser } from "../gateway/user-store";
import type { CommitAuthor } from "./workspace-types";

/** The user as a commit author: their name (or email) and email, from the users table. */
export async function commitAuthorOf(env: Env, userId: number): Promise<CommitAuthor> {
	const user = await findUser(env, userId);
	if (!user) throw new Error(`user ${userId} not found`);
	return { name: user.name?.trim() || user.email, email: user.email };
}
