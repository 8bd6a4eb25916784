/**
 * The `Range` header of a byte request (RFC 9110 §14). One range is honoured (206); a header
 * that is not `bytes=`, is malformed, or asks for several ranges is ignored and the whole body
 * is sent (200), as the RFC allows: players ask for one range, and a multipart/byteranges body
 * would only serve clients that do not exist here. A single range past the end is 416.
 */
export type RangeAnswer = { kind: "full" } | { kind: "partial"; start: number; end: number } | { kind: "unsatisfiable" };

export function parseRange(header: string | null | undefined, size: number): RangeAnswer {
	if (!header) return { kind: "full" };
	const match = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header.trim());
	if (!match) return { kind: "full" };
	const [, first = "", last = ""] = match;
	if (first === "" && last === "") return { kind: "full" };
	if (first === "") {
		// Suffix range: the last N bytes.
		const length = Number(last);
		if (length === 0 || size === 0) return { kind: "unsatisfiable" };
		return { kind: "partial", start: Math.max(0, size - length), end: size - 1 };
	}
	const start = Number(first);
	// A last position before the first makes the header invalid, so it is ignored.
	if (last !== "" && Number(last) < start) return { kind: "full" };
	if (start >= size) return { kind: "unsatisfiable" };
	return { kind: "partial", start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}
