import { createRoute, z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { transcriptShares } from "../db/schema";
import { notFound } from "../errors";
import { meetingTranscript, segmentsOf } from "../meetings/meeting-queries";
import { db } from "../meetings/meeting-store";
import { ShareTtl, shareTranscript } from "../meetings/transcript-shares";
import { type TranscriptHead, transcriptText } from "../meetings/transcript-text";
import { MeetingLinkParams } from "./meeting-link-params";
import { Transcript } from "./meeting-schemas";
import { publicBaseUrl } from "./meetings";
import { jsonResponse, routeModule } from "./openapi-app";

/** Transcripts after (and during) the meeting, and their time-limited public shares. */
export const transcriptRoutes = routeModule();

const Link = MeetingLinkParams;

transcriptRoutes.openapi(
	createRoute({
		method: "get",
		path: "/transcripts/{platform}/{native_meeting_id}",
		request: { params: Link },
		responses: {
			200: jsonResponse(Transcript, "The transcript, ordered by start"),
		},
	}),
	async (c) => c.json(await meetingTranscript(c.env, c.get("identity"), c.req.valid("param")), 200),
);

transcriptRoutes.openapi(
	createRoute({
		method: "post",
		path: "/transcripts/{platform}/{native_meeting_id}/share",
		request: {
			params: Link,
			query: z.object({ ttl_seconds: ShareTtl.optional() }),
		},
		responses: {
			200: jsonResponse(
				z.object({ share_id: z.string(), url: z.string(), expires_at: z.string(), expires_in_seconds: z.number().int() }),
				"A public link to the transcript as plain text, until it expires",
			),
		},
	}),
	async (c) =>
		c.json(await shareTranscript(c.env, c.get("identity"), c.req.valid("param"), c.req.valid("query").ttl_seconds, publicBaseUrl(c)), 200),
);

transcriptRoutes.openapi(
	createRoute({
		method: "get",
		path: "/public/transcripts/{share_file}",
		request: { params: z.object({ share_file: z.string().max(64) }) },
		responses: { 200: { description: "The shared transcript as text/plain", content: { "text/plain": { schema: z.string() } } } },
	}),
	async (c) => {
		const file = c.req.valid("param").share_file;
		if (!file.endsWith(".txt")) throw notFound("Share not found");
		const id = file.slice(0, -4);
		if (!/^[A-Za-z0-9_-]{10,40}$/.test(id)) throw notFound("Share not found");
		const share = await db(c.env).select().from(transcriptShares).where(eq(transcriptShares.shareId, id)).get();
		if (!share || Date.parse(share.expiresAt) <= Date.now()) throw notFound("Share not found");
		const row = await c.env.DB.prepare("SELECT platform, native_meeting_id, start_time, end_time FROM meetings WHERE id = ?")
			.bind(share.meetingId)
			.first<TranscriptHead>();
		if (!row) throw notFound("Share not found");
		const text = transcriptText(row, await segmentsOf(c.env, share.meetingId));
		return c.text(text, 200, { "content-type": "text/plain; charset=utf-8" });
	},
);
