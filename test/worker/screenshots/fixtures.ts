import { SELF } from "cloudflare:test";
import type { SpawnRequest } from "../../../src/bot-channel/protocol";

/** A JPEG's first bytes (SOI, APP0 "JFIF") and a little more: what the magic-byte check reads. */
export const jpegBytes = (fill = 1) =>
	Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, fill, 0xff, 0xd9]);
/** A PNG's signature and the start of its IHDR chunk. */
export const pngBytes = () =>
	Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);

/** Uploads a screenshot as a bot does: PUT <screenshot_upload_url>/<name>, Bearer channel token. */
export function uploadScreenshot(
	spawn: Pick<SpawnRequest, "screenshot_upload_url" | "channel">,
	name: string,
	body: Uint8Array,
	options: { type?: string; token?: string | null } = {},
): Promise<Response> {
	const headers: Record<string, string> = {
		"content-type": options.type ?? (name.endsWith(".png") ? "image/png" : "image/jpeg"),
		"content-length": String(body.length),
	};
	const token = options.token === undefined ? spawn.channel.token : options.token;
	if (token !== null) headers.authorization = `Bearer ${token}`;
	return SELF.fetch(`${spawn.screenshot_upload_url}/${name}`, { method: "PUT", headers, body });
}

/** Opens a screenshot link as a browser would, with no credential but the link. */
export const openLink = (url: string) => SELF.fetch(url);

export const bytesOf = async (res: Response) => new Uint8Array(await res.arrayBuffer());
