import { z } from "@hono/zod-openapi";
import { and, eq, gt, inArray, isNull, or } from "drizzle-orm";
import { db } from "../db";
import { apiTokens, meetings, transcriptShares } from "../db/schema";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { setting } from "../settings/deployment-defaults";
import { startedMeeting } from "./meeting-queries";

/**
 * Drizzle store: time-limited public links to a transcript (POST /transcripts/.../share), shared by the REST
 * route and the MCP tool. Only the meeting's owner publishes it, a share can be revoked, and
 * the public read checks each time that the share, its key and the owner's meeting still hold.
 */

/** Who shares: the user, and the key they used (the share ends with that key). */
export interface Sharer {
	userId: number;
	tokenId: number;
}

/** How long a share lives: the query of POST .../share, and the MCP tool's argument. */
export const ShareTtl = z.coerce
	.number()
	.int()
	.min(60)
	.max(7 * 86_400);

export const SHARE_NOT_FOUND = "Share not found";

function shareId(): string {
	const bytes = crypto.getRandomValues(new Uint8Array(18));
	return btoa(String.fromCharCode(...bytes))
		.replace(/\+/g, "-")
		.replace(/\//g, "_")
		.replace(/=+$/, "");
}

/**
 * Shares the transcript of the newest started meeting on a link, until it expires (default
 * TRANSCRIPT_SHARE_TTL_S); the link is under `baseUrl`. 404 "Meeting not found"; 403 when the
 * meeting is another user's (a workspace member reads it but may not publish it).
 */
export async function shareTranscript(
	env: Env,
	sharer: Sharer,
	link: { platform: string; native_meeting_id: string },
	ttlSeconds: number | undefined,
	baseUrl: string,
) {
	const row = await startedMeeting(env, sharer, link.platform, link.native_meeting_id);
	if (row.userId !== sharer.userId) throw new ApiError(403, "Only the meeting's owner can share its transcript");
	const ttl = ttlSeconds ?? setting(env, "TRANSCRIPT_SHARE_TTL_S");
	const now = new Date();
	const id = shareId();
	const expiresAt = new Date(now.getTime() + ttl * 1000).toISOString();
	await db(env)
		.insert(transcriptShares)
		.values({ shareId: id, meetingId: row.id, userId: sharer.userId, tokenId: sharer.tokenId, expiresAt, createdAt: now.toISOString() });
	return { share_id: id, url: `${baseUrl}/public/transcripts/${id}.txt`, expires_at: expiresAt, expires_in_seconds: ttl };
}

/** Ends one of the caller's shares of the meeting on the link at once; 404 for any other share. */
export async function revokeShare(env: Env, sharer: Sharer, link: { platform: string; native_meeting_id: string }, id: string) {
	const orm = db(env);
	const onLink = orm
		.select({ id: meetings.id })
		.from(meetings)
		.where(and(eq(meetings.platform, link.platform), eq(meetings.nativeMeetingId, link.native_meeting_id)));
	const deleted = await orm
		.delete(transcriptShares)
		.where(and(eq(transcriptShares.shareId, id), eq(transcriptShares.userId, sharer.userId), inArray(transcriptShares.meetingId, onLink)))
		.returning({ shareId: transcriptShares.shareId })
		.get();
	if (!deleted) throw notFound(SHARE_NOT_FOUND);
}

/**
 * The meeting a public share still shows, or null: the share exists and has not expired, its
 * maker still owns the meeting, and the key that made it still exists and has not expired.
 */
export async function sharedMeetingId(env: Env, id: string, now = new Date()): Promise<number | null> {
	const iso = now.toISOString();
	const share = await db(env)
		.select({ meetingId: transcriptShares.meetingId })
		.from(transcriptShares)
		.innerJoin(meetings, and(eq(meetings.id, transcriptShares.meetingId), eq(meetings.userId, transcriptShares.userId)))
		.leftJoin(apiTokens, eq(apiTokens.id, transcriptShares.tokenId))
		.where(
			and(
				eq(transcriptShares.shareId, id),
				gt(transcriptShares.expiresAt, iso),
				or(
					isNull(transcriptShares.tokenId),
					and(eq(apiTokens.userId, transcriptShares.userId), or(isNull(apiTokens.expiresAt), gt(apiTokens.expiresAt, iso))),
				),
			),
		)
		.get();
	return share?.meetingId ?? null;
}
