/** The SHA-256 of a text as lower-case hex, cut to its first `bytes` bytes: stable ids named by content. */
export async function sha256Hex(text: string, bytes = 32): Promise<string> {
	const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
	return Array.from(digest.slice(0, bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}
