/**
 * Reads a body (a response's, or an upload's) up to a byte limit, as a stream, so a sender
 * cannot make the Worker hold more than the limit in memory. Null when the body is (or says it
 * is) larger; the rest is then cancelled, not read.
 */
export async function readCappedBytes(res: Request | Response, maxBytes: number): Promise<Uint8Array | null> {
	const declared = Number(res.headers.get("content-length"));
	if (Number.isFinite(declared) && declared > maxBytes) {
		await res.body?.cancel();
		return null;
	}
	if (!res.body) return new Uint8Array(0);
	const reader = res.body.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		size += value.byteLength;
		if (size > maxBytes) {
			await reader.cancel();
			return null;
		}
		chunks.push(value);
	}
	const bytes = new Uint8Array(size);
	let at = 0;
	for (const chunk of chunks) {
		bytes.set(chunk, at);
		at += chunk.byteLength;
	}
	return bytes;
}
