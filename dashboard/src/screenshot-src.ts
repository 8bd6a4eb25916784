/**
 * What a bot's screenshot may be shown from (docs/api.md#help-and-diagnostics). The link comes
 * inside a meeting's data, next to text the meeting page wrote, so it is checked before it
 * becomes an `<img src>`: only the gateway's own signed screenshot route, always on this
 * origin (the path and query are kept, the host never), else nothing. Pure.
 */
const SIGNED_SCREENSHOT = /^\/public\/screenshots\/\d+\/\d+\/[a-z0-9_-]{1,64}\.(jpg|png)$/;

export function screenshotSrc(url: unknown): string | null {
	if (typeof url !== "string" || !url) return null;
	let parsed: URL;
	try {
		parsed = new URL(url, "https://origin.invalid");
	} catch {
		return null;
	}
	if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
	if (!SIGNED_SCREENSHOT.test(parsed.pathname)) return null;
	const expires = parsed.searchParams.get("expires");
	const signature = parsed.searchParams.get("signature");
	if (!expires || !/^\d+$/.test(expires) || !signature || !/^[A-Za-z0-9_-]+$/.test(signature)) return null;
	return `${parsed.pathname}?expires=${expires}&signature=${signature}`;
}
