/**
 * Byte arrays joined into one, in order (git pkt-lines, packs and HTTP bodies read in chunks).
 * When only one part holds bytes it is returned as it is, not copied: callers read the result.
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
	const filled = parts.filter((p) => p.byteLength > 0);
	if (filled.length === 1) return filled[0] as Uint8Array;
	const out = new Uint8Array(filled.reduce((n, p) => n + p.byteLength, 0));
	let at = 0;
	for (const part of filled) {
		out.set(part, at);
		at += part.byteLength;
	}
	return out;
}
