/**
 * Drizzle store: what signed-in calendars keep beside the connection row: sign-ins under way
 * (calendar_oauth_states), sealed tokens, and push channels (migration 0021).
 */
import { eq, lt } from "drizzle-orm";
import { db } from "../../db";
import { type CalendarConnectionRow, calendarConnections, calendarOauthStates } from "../../db/schema";
import type { Env } from "../../env";

export type SignInState = typeof calendarOauthStates.$inferSelect;

export async function insertSignInState(env: Env, state: SignInState): Promise<void> {
	await db(env).delete(calendarOauthStates).where(lt(calendarOauthStates.expiresAt, state.createdAt)).run();
	await db(env).insert(calendarOauthStates).values(state).run();
}

/** The sign-in under way with this state hash, deleted as it is read: a state is good for one callback only. */
export async function takeSignInState(env: Env, stateHash: string): Promise<SignInState | undefined> {
	return db(env).delete(calendarOauthStates).where(eq(calendarOauthStates.stateHash, stateHash)).returning().get();
}

export async function sealedTokensOf(env: Env, connectionId: string): Promise<string | null> {
	const row = await db(env)
		.select({ sealed: calendarConnections.oauthTokensSealed })
		.from(calendarConnections)
		.where(eq(calendarConnections.id, connectionId))
		.get();
	return row?.sealed ?? null;
}

export async function saveSealedTokens(env: Env, connectionId: string, oauthTokensSealed: string): Promise<void> {
	await db(env).update(calendarConnections).set({ oauthTokensSealed }).where(eq(calendarConnections.id, connectionId)).run();
}

export async function savePushChannel(
	env: Env,
	connectionId: string,
	channel: Pick<CalendarConnectionRow, "pushChannelId" | "pushResourceId" | "pushExpiresAt" | "pushSecretHash">,
): Promise<void> {
	await db(env).update(calendarConnections).set(channel).where(eq(calendarConnections.id, connectionId)).run();
}

export async function connectionByChannel(env: Env, channelId: string): Promise<CalendarConnectionRow | undefined> {
	return db(env).select().from(calendarConnections).where(eq(calendarConnections.pushChannelId, channelId)).get();
}

/** Makes the connection due now, for the next background sync. */
export async function syncSoon(env: Env, connectionId: string): Promise<void> {
	await db(env)
		.update(calendarConnections)
		.set({ nextSyncAt: new Date().toISOString() })
		.where(eq(calendarConnections.id, connectionId))
		.run();
}
