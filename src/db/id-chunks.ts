/** D1 binds at most 100 parameters per statement; a list of ids goes in chunks below that. */
const ID_CHUNK = 90;

/** Runs a read over a caller-sized id list in chunks, concatenating what each chunk returns. */
export async function readInIdChunks<T>(ids: readonly number[], read: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
	const out: T[] = [];
	for (let i = 0; i < ids.length; i += ID_CHUNK) out.push(...(await read(ids.slice(i, i + ID_CHUNK))));
	return out;
}
