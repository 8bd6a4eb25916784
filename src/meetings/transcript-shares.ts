import { z } from "@hono/zod-openapi";
import { transcriptShares } from "../db/schema";
import { type Env, intVar } from "../env";
import { type Reader, startedMeeting } from "./meeting-queries";
import { db } from "./meeting-store";

/** Time-limited public links to a transcript (POST /transcripts/.../share), shared by the REST route and the MCP tool. */

/** How long a share lives: the query of POST .../share, and the MCP tool's argument. */
export const ShareTtl = z.coerce
	.number()
	.int()
	.min(60)
	.max(7 * 86_400);

function shareId(): string {
	const bytes = crypto.getRandomValues(new Uint8Array(18));
	return btoa(String.fromCharCode(...bytes))
		.replace(/\+/g, "-")
		.replace(/\//g, "_")
		.replace(/=+$/, "");
}

/**
 * Shares the transcript of the newest started meeting on a link the reader may read, until it
 * expires (default TRANSCRIPT_SHARE_TTL_S); the link is under `baseUrl`. 404 "Meeting not found".
 */
export async function shareTranscript(
	env: Env,
	reader: Reader,
	link: { platform: string; native_meeting_id: string },
	ttlSeconds: number | undefined,
	baseUrl: string,
) {
	const row = await startedMeeting(env, reader, link.platform, link.native_meeting_id);
	const ttl = ttlSeconds ?? intVar(env.TRANSCRIPT_SHARE_TTL_S, 900);
	const now = new Date();
	const id = shareId();
	const expiresAt = new Date(now.getTime() + ttl * 1000).toISOString();
	await db(env)
		.insert(transcriptShares)
		.values({ shareId: id, meetingId: row.id, userId: reader.userId, expiresAt, createdAt: now.toISOString() });
	return { share_id: id, url: `${baseUrl}/public/transcripts/${id}.txt`, expires_at: expiresAt, expires_in_seconds: ttl };
}
