/**
 * A bot's screenshots (help requests, failures): where they live in R2, what a meeting's data
 * keeps of one (a reference, never a URL), and the short-lived links its owner sees them
 * through. A link is `/public/screenshots/<meeting>/<attempt>/<name>?expires=&signature=`,
 * HMAC-SHA256 over (meeting, attempt, name, expiry) under a key derived from SECRETS_KEY, so
 * only the Worker can make one, and one meeting's link can never name another's object.
 */
import { ScreenshotName } from "../bot-channel/help-report";
import type { Env } from "../env";
import { checkLink, type LinkCheck, signLink } from "../gateway/link-signature";
import { meetingOwnerAndStatus } from "../meetings/meeting-store";
import { setting } from "../settings/deployment-defaults";
import { derivedHmacKey } from "../settings/derived-key";
import type { ScreenshotRef } from "../shapes/help";

/** What a meeting's data keeps of a screenshot (src/shapes/help.ts). */
export type { ScreenshotRef };

/** How many screenshots one attempt's bot may store (a help request or two, a failure; retries overwrite by name). */
export const SCREENSHOTS_PER_ATTEMPT = 20;

export type ScreenshotType = "image/jpeg" | "image/png";

/** The R2 key of a screenshot: under its owner, its meeting and the attempt whose bot took it. */
export const screenshotKey = (userId: number, meetingId: number, ref: ScreenshotRef) =>
	`${attemptPrefix(userId, meetingId, ref.attempt)}${ref.name}`;

export const attemptPrefix = (userId: number, meetingId: number, attempt: number) =>
	`${meetingScreenshotsPrefix(userId, meetingId)}${attempt}/`;

/** Every screenshot of a meeting, all attempts: what its deletion and its retention remove. */
export const meetingScreenshotsPrefix = (userId: number, meetingId: number) => `screenshots/${userId}/${meetingId}/`;

/** The image type a name promises by its extension. */
export const typeOfName = (name: string): ScreenshotType => (name.endsWith(".png") ? "image/png" : "image/jpeg");

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The image type the bytes really are (by their magic bytes), or null for anything else. */
export function imageTypeOf(bytes: Uint8Array): ScreenshotType | null {
	if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
	if (bytes.length >= PNG_MAGIC.length && PNG_MAGIC.every((b, i) => bytes[i] === b)) return "image/png";
	return null;
}

/** A reference as stored data holds it, or null for anything that is not one. */
export function screenshotRefOf(value: unknown): ScreenshotRef | null {
	if (!value || typeof value !== "object") return null;
	const { attempt, name } = value as Record<string, unknown>;
	if (typeof attempt !== "number" || !Number.isSafeInteger(attempt) || attempt < 1) return null;
	return ScreenshotName.safeParse(name).success ? { attempt, name: name as string } : null;
}

/** A meeting's owner and status, as the upload and the link read them; undefined when it is gone. */
export async function meetingOwnerOf(env: Env, meetingId: number): Promise<{ user_id: number; status: string } | undefined> {
	const row = await meetingOwnerAndStatus(env, meetingId);
	return row && { user_id: row.userId, status: row.status };
}

/** How long a link works (SCREENSHOT_LINK_TTL_S). */
export const linkTtlSeconds = (env: Env): number => Math.max(1, setting(env, "SCREENSHOT_LINK_TTL_S"));

const signedText = (meetingId: number, ref: ScreenshotRef, expires: number) =>
	`screenshot:${meetingId}:${ref.attempt}:${ref.name}:${expires}`;

/** The origin links are made for: only PUBLIC_BASE_URL, never a request's Host (which a caller chooses). */
function linkOrigin(env: Env): string | null {
	try {
		const url = new URL(env.PUBLIC_BASE_URL?.trim() ?? "");
		return url.protocol === "https:" || url.protocol === "http:" ? url.origin : null;
	} catch {
		return null;
	}
}

/** A link to one screenshot of a meeting, valid until `now` + the TTL; null where links cannot be made. */
export async function screenshotUrl(env: Env, meetingId: number, ref: ScreenshotRef, now = new Date()): Promise<string | null> {
	const origin = linkOrigin(env);
	if (!origin || !env.SECRETS_KEY) return null;
	const expires = Math.floor(now.getTime() / 1000) + linkTtlSeconds(env);
	const key = await derivedHmacKey(env.SECRETS_KEY, "screenshot-link/v1");
	const signature = await signLink(key, signedText(meetingId, ref, expires));
	return `${origin}/public/screenshots/${meetingId}/${ref.attempt}/${ref.name}?expires=${expires}&signature=${signature}`;
}

/** Checks a link: the signature first (constant time), then the expiry. */
export async function checkScreenshotLink(
	env: Env,
	meetingId: number,
	ref: ScreenshotRef,
	expires: string | undefined,
	signature: string | undefined,
	now: Date,
): Promise<LinkCheck> {
	if (!env.SECRETS_KEY) return "invalid";
	const key = await derivedHmacKey(env.SECRETS_KEY, "screenshot-link/v1");
	return checkLink(key, (at) => signedText(meetingId, ref, at), expires, signature, now);
}

/** The keys of a meeting's data that cite a screenshot, each shown with a fresh link. */
const CITING_KEYS = ["help", "diagnostics"] as const;

/**
 * A meeting's data as its owner sees it: `help` and `diagnostics` each gain a `screenshot_url`
 * minted now (null without a screenshot). The stored data is left as it is.
 */
export async function withScreenshotLinks<D extends Record<string, unknown>>(
	env: Env,
	meetingId: number,
	data: D,
	now = new Date(),
): Promise<D> {
	let shown: D | undefined;
	for (const key of CITING_KEYS) {
		const cited = data[key];
		if (!cited || typeof cited !== "object" || Array.isArray(cited)) continue;
		const ref = screenshotRefOf((cited as Record<string, unknown>).screenshot);
		shown ??= { ...data };
		(shown as Record<string, unknown>)[key] = { ...cited, screenshot_url: ref ? await screenshotUrl(env, meetingId, ref, now) : null };
	}
	return shown ?? data;
}

/** A meeting view (or record) whose `data` shows screenshot links minted now. */
export async function withLinkedData<V extends { id: number; data: Record<string, unknown> }>(env: Env, view: V): Promise<V> {
	const data = await withScreenshotLinks(env, view.id, view.data);
	return data === view.data ? view : { ...view, data };
}
