import { createRoute, z } from "@hono/zod-openapi";
import { publicBaseUrl } from "../env";
import { notFound } from "../errors";
import { MeetingLinkParams } from "../meetings/meeting-link-params";
import { meetingTranscript, segmentsOf, transcriptHeadOf } from "../meetings/meeting-queries";
import { versionedRendering } from "../meetings/transcript-cache";
import { ExportFormatParam, transcriptExport } from "../meetings/transcript-export";
import { revokeShare, SHARE_NOT_FOUND, ShareTtl, sharedMeetingId, shareTranscript } from "../meetings/transcript-shares";
import { transcriptText } from "../meetings/transcript-text";
import { Transcript } from "./meeting-schemas";
import { jsonResponse, routeModule } from "./openapi-app";

/** Transcripts after (and during) the meeting, and their time-limited public shares. */
export const transcriptRoutes = routeModule();

const Link = MeetingLinkParams;

const exportFile = (type: string, what: string) => ({ [type]: { schema: z.string().openapi({ description: what }) } });

transcriptRoutes.openapi(
	createRoute({
		method: "get",
		path: "/transcripts/{platform}/{native_meeting_id}",
		request: {
			params: Link,
			query: z.object({
				format: ExportFormatParam.optional().openapi({
					description:
						"Download the transcript as a file (docs/api.md#exports): `srt`, `vtt` or `txt` (confirmed segments only), or `json` " +
						"(this answer plus `title` and `exported_at`), with `Content-Disposition: attachment`. Without it, the JSON below.",
				}),
			}),
		},
		responses: {
			200: {
				description: "The transcript, ordered by start; with `format`, the export file",
				content: {
					"application/json": { schema: Transcript },
					...exportFile("application/x-subrip", "SubRip cues (`format=srt`)"),
					...exportFile("text/vtt", "WebVTT cues with `<v Speaker>` voice tags (`format=vtt`)"),
					...exportFile("text/plain", "A header, then `[hh:mm:ss] Speaker: text` lines (`format=txt`)"),
				},
			},
			304: { description: "With `format`: If-None-Match names the export's current version (its ETag), so nothing changed" },
		},
	}),
	async (c) => {
		const link = c.req.valid("param");
		const { format } = c.req.valid("query");
		if (!format) return c.json(await meetingTranscript(c.env, c.get("identity"), link), 200);
		const file = await transcriptExport(c.env, c.get("identity"), link, format, c.req.header("if-none-match"));
		// The typed context answers only the JSON shape; an export is a file in its own content type, hence the cast.
		return new Response(file.body, { status: file.body === null ? 304 : 200, headers: file.headers }) as never;
	},
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
				"A public link to the transcript as plain text, until it expires or is revoked; only the meeting's owner may share",
			),
		},
	}),
	async (c) =>
		c.json(
			await shareTranscript(
				c.env,
				c.get("identity"),
				c.req.valid("param"),
				c.req.valid("query").ttl_seconds,
				publicBaseUrl(c.env, c.req.raw),
			),
			200,
		),
);

transcriptRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/transcripts/{platform}/{native_meeting_id}/share/{share_id}",
		request: { params: Link.extend({ share_id: z.string().min(1).max(64) }) },
		responses: { 204: { description: "Revoked: the public link answers 404 from now on" } },
	}),
	async (c) => {
		const { share_id, ...link } = c.req.valid("param");
		await revokeShare(c.env, c.get("identity"), link, share_id);
		return c.body(null, 204);
	},
);

transcriptRoutes.openapi(
	createRoute({
		method: "get",
		path: "/public/transcripts/{share_file}",
		request: { params: z.object({ share_file: z.string().max(64) }) },
		responses: {
			200: {
				description: "The shared transcript as text/plain, with its version as ETag",
				content: { "text/plain": { schema: z.string() } },
			},
			304: { description: "If-None-Match names the transcript's current version: nothing changed" },
		},
	}),
	async (c) => {
		const file = c.req.valid("param").share_file;
		if (!file.endsWith(".txt")) throw notFound(SHARE_NOT_FOUND);
		const id = file.slice(0, -4);
		if (!/^[A-Za-z0-9_-]{10,40}$/.test(id)) throw notFound(SHARE_NOT_FOUND);
		// Checked at every read: revoked, expired, its key gone or the meeting no longer its maker's are all 404.
		const meetingId = await sharedMeetingId(c.env, id);
		if (meetingId === null) throw notFound(SHARE_NOT_FOUND);
		const row = await transcriptHeadOf(c.env, meetingId);
		if (!row) throw notFound(SHARE_NOT_FOUND);
		// Rendered once per version of the transcript, however many anonymous reads; kept by no
		// cache along the way without asking again, so a revoked share stops at once.
		const { etag, body } = await versionedRendering(c.env, meetingId, "share.txt", row, c.req.header("if-none-match"), async () =>
			transcriptText(row, await segmentsOf(c.env, meetingId)),
		);
		const headers = { "content-type": "text/plain; charset=utf-8", "cache-control": "private, no-cache", etag };
		return body === null ? c.body(null, 304, headers) : c.text(body, 200, headers);
	},
);
