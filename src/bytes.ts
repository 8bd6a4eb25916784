/** Byte arrays joined into one, in order (git pkt-lines, packs and HTTP bodies read in chunks). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
	const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
	let at = 0;
	for (const part of parts) {
		out.set(part, at);
		at += part.byteLength;
	}
	return out;
}
