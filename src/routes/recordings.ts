import { createRoute, z } from "@hono/zod-openapi";
import type { MediaFileRow, RecordingRow } from "../db/schema";
import { type Env, publicBaseUrl } from "../env";
import { ApiError, notFound } from "../errors";
import { checkDownloadLink, contentTypeOf, downloadTtlSeconds, downloadUrl, mediaFileName } from "../recordings/download-link";
import { mediaBytes } from "../recordings/media-response";
import { deleteRecording } from "../recordings/recording-deletion";
import { findMediaFile, ListRecordingsQuery, listRecordings, ownedRecordingRows, recordingView } from "../recordings/recording-store";
import { MediaFile } from "../shapes/recording";
import { jsonResponse, routeModule } from "./openapi-app";
import { Recording, RecordingDeletionReceipt } from "./recording-schemas";

/** The recording routes (docs/api.md#recordings): the owner's recordings, their bytes and download links. */
export const recordingRoutes = routeModule();

const RecordingId = z.object({ recording_id: z.coerce.number().int().positive() });
const MediaFileId = RecordingId.extend({ media_file_id: z.coerce.number().int().positive() });
const binary = (description: string) => ({
	description,
	content: Object.fromEntries(
		["audio/webm", "video/webm", "audio/wav"].map((type) => [type, { schema: z.string().openapi({ format: "binary" }) }]),
	),
});

/** Only the owner sees a recording; anyone else gets the same 404 as for no recording at all. */
async function ownedRecording(env: Env, userId: number, recordingId: number): Promise<{ recording: RecordingRow; files: MediaFileRow[] }> {
	const owned = await ownedRecordingRows(env, userId, recordingId);
	if (!owned) throw notFound("Recording not found");
	return owned;
}

function mediaFileOf(files: MediaFileRow[], mediaFileId: number): MediaFileRow {
	const file = files.find((f) => f.id === mediaFileId);
	if (!file) throw notFound("Media file not found");
	return file;
}

recordingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/recordings",
		request: { query: ListRecordingsQuery },
		responses: { 200: jsonResponse(z.object({ recordings: z.array(Recording) }), "The caller's recordings, newest first") },
	}),
	async (c) => c.json({ recordings: await listRecordings(c.env, c.get("identity"), c.req.valid("query")) }, 200),
);

recordingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/recordings/{recording_id}",
		request: { params: RecordingId },
		responses: { 200: jsonResponse(Recording, "One recording with its media files") },
	}),
	async (c) => {
		const { recording, files } = await ownedRecording(c.env, c.get("identity").userId, c.req.valid("param").recording_id);
		return c.json(recordingView(recording, files), 200);
	},
);

recordingRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/recordings/{recording_id}",
		request: { params: RecordingId },
		responses: {
			200: jsonResponse(RecordingDeletionReceipt, "Deleted with its stored objects and rows, with what went"),
			503: jsonResponse(
				RecordingDeletionReceipt.extend({ detail: z.string() }),
				"The bucket refused an object: the recording stays; DELETE again to finish",
			),
		},
	}),
	async (c) => {
		const { recording, files } = await ownedRecording(c.env, c.get("identity").userId, c.req.valid("param").recording_id);
		const receipt = await deleteRecording(c.env, recording, files);
		if (receipt.status === "deleted") return c.json(receipt, 200);
		const detail = "Some of the recording's stored media could not be deleted; the recording stays: delete it again to finish";
		return c.json({ detail, ...receipt }, 503, { "Retry-After": "5" });
	},
);

recordingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/recordings/{recording_id}/master",
		request: { params: RecordingId, query: z.object({ type: z.enum(["audio", "video"]).default("audio") }) },
		responses: {
			200: jsonResponse(
				// The master file (src/shapes/recording.ts) with its recording's words; a stored master always has its size and length.
				MediaFile.pick({ type: true, format: true, storage_backend: true })
					.extend({
						recording_id: z.number().int(),
						meeting_id: z.number().int(),
						media_file_id: z.number().int(),
						content_type: z.string(),
						file_size_bytes: z.number().int(),
						duration_seconds: z.number(),
						status: z.string(),
						finalized: z.boolean(),
						raw_url: z.string(),
					})
					.openapi("RecordingMaster"),
				"The master media file of the recording, with the URL of its bytes",
			),
		},
	}),
	async (c) => {
		const { recording_id } = c.req.valid("param");
		const { type } = c.req.valid("query");
		const { recording, files } = await ownedRecording(c.env, c.get("identity").userId, recording_id);
		// One file of each type per bot session (a WAV upload, or a streamed WebM): the master is the largest of the type.
		const master = files.filter((f) => f.type === type).sort((a, b) => b.fileSizeBytes - a.fileSizeBytes)[0];
		if (!master) throw notFound(`No ${type} media for this recording`);
		return c.json(
			{
				recording_id: recording.id,
				meeting_id: recording.meetingId,
				media_file_id: master.id,
				type: master.type,
				format: master.format,
				content_type: contentTypeOf(master),
				storage_backend: master.storageBackend,
				file_size_bytes: master.fileSizeBytes,
				duration_seconds: master.durationSeconds,
				status: recording.status,
				finalized: recording.status === "completed",
				raw_url: `${publicBaseUrl(c.env, c.req.raw)}/recordings/${recording.id}/media/${master.id}/raw`,
			},
			200,
		);
	},
);

recordingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/recordings/{recording_id}/media/{media_file_id}/raw",
		request: { params: MediaFileId },
		responses: {
			200: binary("The whole file, Content-Disposition: inline"),
			206: binary("One byte range (a single Range: bytes=... header)"),
			416: { description: "The range starts past the end; Content-Range: bytes */size" },
		},
	}),
	async (c) => {
		const { recording_id, media_file_id } = c.req.valid("param");
		const { files } = await ownedRecording(c.env, c.get("identity").userId, recording_id);
		return mediaBytes(c.env, mediaFileOf(files, media_file_id), c.req.header("range"), "inline");
	},
);

recordingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/recordings/{recording_id}/media/{media_file_id}/download",
		request: { params: MediaFileId },
		responses: {
			200: jsonResponse(
				z
					.object({
						download_url: z.string(),
						filename: z.string(),
						content_type: z.string(),
						file_size_bytes: z.number().int(),
						expires_in_seconds: z.number().int(),
					})
					.openapi("RecordingDownload"),
				"A link that works without an API key until it expires",
			),
		},
	}),
	async (c) => {
		const { recording_id, media_file_id } = c.req.valid("param");
		const { files } = await ownedRecording(c.env, c.get("identity").userId, recording_id);
		const file = mediaFileOf(files, media_file_id);
		return c.json(
			{
				download_url: await downloadUrl(c.env, file, publicBaseUrl(c.env, c.req.raw), c.get("clock").now()),
				filename: mediaFileName(file),
				content_type: contentTypeOf(file),
				file_size_bytes: file.fileSizeBytes,
				expires_in_seconds: downloadTtlSeconds(c.env),
			},
			200,
		);
	},
);

recordingRoutes.openapi(
	createRoute({
		method: "get",
		path: "/public/recordings/{media_file_id}/{file_name}",
		request: {
			params: z.object({ media_file_id: z.coerce.number().int().positive(), file_name: z.string().max(200) }),
			query: z.object({ expires: z.string().optional(), signature: z.string().max(200).optional() }),
		},
		responses: {
			200: binary("The whole file, as an attachment"),
			206: binary("One byte range"),
			403: jsonResponse(z.object({ detail: z.string() }), "Expired or not a link the gateway signed"),
			404: jsonResponse(z.object({ detail: z.string() }), "The recording was deleted"),
		},
	}),
	async (c) => {
		const { media_file_id } = c.req.valid("param");
		const { expires, signature } = c.req.valid("query");
		const check = await checkDownloadLink(c.env, media_file_id, expires, signature, c.get("clock").now());
		if (check === "expired") throw new ApiError(403, "Download link expired");
		if (check === "invalid") throw new ApiError(403, "Invalid download link");
		const file = await findMediaFile(c.env, media_file_id);
		if (!file) throw notFound("Recording not found");
		return mediaBytes(c.env, file, c.req.header("range"), "attachment");
	},
);
