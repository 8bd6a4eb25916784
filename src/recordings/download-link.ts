/**
 * Download links for a media file. With S3 credentials for the bucket, a presigned R2 URL;
 * otherwise a URL to the gateway's own public byte route, signed by the gateway (HMAC-SHA256
 * under a key derived from SECRETS_KEY, expiry in the query). Either works without an API key
 * until it expires, and not after.
 */

import type { MediaFileRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { checkLink, type LinkCheck, signLink } from "../gateway/link-signature";
import { setting } from "../settings/deployment-defaults";
import { derivedHmacKey } from "../settings/derived-key";
import { presignUrl } from "./presign";

function linkKey(secretsKey: string | undefined): Promise<CryptoKey> {
	if (!secretsKey) throw new ApiError(503, "Download links are not configured on this deployment");
	return derivedHmacKey(secretsKey, "recording-download-link/v1");
}

const signedText = (mediaFileId: number, expires: number) => `media:${mediaFileId}:${expires}`;

export function mediaFileName(file: Pick<MediaFileRow, "id" | "recordingId" | "format">): string {
	return `recording-${file.recordingId}-${file.id}.${file.format}`;
}

/** A file's media type: WebM and MP4 are containers, so a video file's is `video/…` and an audio file's `audio/…`. */
export function contentTypeOf(file: Pick<MediaFileRow, "type" | "format">): string {
	if (file.format === "webm" || file.format === "mp4") return `${file.type === "video" ? "video" : "audio"}/${file.format}`;
	const types: Record<string, string> = { wav: "audio/wav", mp3: "audio/mpeg", ogg: "audio/ogg" };
	return types[file.format] ?? "application/octet-stream";
}

export function downloadTtlSeconds(env: Env): number {
	return Math.max(1, setting(env, "RECORDING_DOWNLOAD_TTL_S"));
}

/** Whether downloads are presigned R2 URLs (all four S3 settings present). */
export function s3Configured(env: Env): boolean {
	return Boolean(env.R2_S3_ENDPOINT && env.R2_ACCESS_KEY_ID && env.R2_SECRET_ACCESS_KEY && env.R2_BUCKET);
}

export async function downloadUrl(env: Env, file: MediaFileRow, gatewayBase: string, now: Date): Promise<string> {
	const ttl = downloadTtlSeconds(env);
	// A streamed file is its parts in order: only the gateway's own byte route serves it as one file.
	if (s3Configured(env) && file.parts === null) {
		const endpoint = (env.R2_S3_ENDPOINT ?? "").replace(/\/+$/, "");
		const url = new URL(`${endpoint}/${env.R2_BUCKET}/${file.storageKey}`);
		return presignUrl({
			url,
			accessKeyId: env.R2_ACCESS_KEY_ID ?? "",
			secretAccessKey: env.R2_SECRET_ACCESS_KEY ?? "",
			region: env.R2_REGION || "auto",
			expiresInSeconds: ttl,
			date: now,
		});
	}
	const expires = Math.floor(now.getTime() / 1000) + ttl;
	const signature = await signLink(await linkKey(env.SECRETS_KEY), signedText(file.id, expires));
	return `${gatewayBase}/public/recordings/${file.id}/${mediaFileName(file)}?expires=${expires}&signature=${signature}`;
}

/** Checks a gateway-signed link: the signature first (constant time), then the expiry. */
export async function checkDownloadLink(
	env: Env,
	mediaFileId: number,
	expires: string | undefined,
	signature: string | undefined,
	now: Date,
): Promise<LinkCheck> {
	return checkLink(await linkKey(env.SECRETS_KEY), (at) => signedText(mediaFileId, at), expires, signature, now);
}
