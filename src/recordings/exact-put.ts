/**
 * A body of a stated length streamed into R2: the object is stored only when exactly `length`
 * bytes arrive. Both sides settle before the answer, since a broken body also fails the put and
 * the other way round; R2 keeps the key's earlier object when the put fails.
 */
export async function putExactLength(
	bucket: R2Bucket,
	key: string,
	body: ReadableStream<Uint8Array>,
	length: number,
	contentType: string,
): Promise<void> {
	const fixed = new FixedLengthStream(length);
	const stored = bucket.put(key, fixed.readable, { httpMetadata: { contentType } });
	const [piped, put] = await Promise.allSettled([body.pipeTo(fixed.writable), stored]);
	if (piped.status === "rejected") throw piped.reason;
	if (put.status === "rejected") throw put.reason;
}
