/** Small pieces the platforms' link readers and meeting labels share. */

/** Printable ASCII, no spaces: keeps rebuilt URLs sane. */
const PASSCODE = /^[\x21-\x7e]{1,128}$/;

export function pathSegments(url: URL): string[] {
	return url.pathname.split("/").filter((s) => s !== "");
}

export function validPasscode(value: string | null | undefined): string | undefined {
	return value && PASSCODE.test(value) ? value : undefined;
}

export function withQuery(base: string, key: string, value: string | undefined): string {
	return value ? `${base}${base.includes("?") ? "&" : "?"}${key}=${encodeURIComponent(value)}` : base;
}

export function safeDecode(value: string): string | null {
	try {
		return decodeURIComponent(value);
	} catch {
		return null;
	}
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A long id (a Teams thread id runs past 50 characters) shortened to its start and end. */
export function shortened(id: string, max = 24): string {
	const chars = [...id];
	return chars.length > max ? `${chars.slice(0, max - 8).join("")}…${chars.slice(-6).join("")}` : id;
}

/** At most `max` characters, the rest cut with an ellipsis. */
export function bounded(text: string, max: number): string {
	const chars = [...text];
	return chars.length > max
		? `${chars
				.slice(0, max - 1)
				.join("")
				.trimEnd()}…`
		: text;
}
