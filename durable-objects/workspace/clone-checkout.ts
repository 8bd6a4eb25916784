/**
 * The checkout of a clone, bounded: trees can name one blob, or one subtree, many times, so a
 * pack within its limits can still describe a work tree of any size. The tree is counted
 * before anything is written (files and directories, against `maxFiles`), and the checkout
 * then writes one file at a time through a file system that counts what it writes (files, and
 * bytes against `maxUnpackedBytes`) and refuses past either, or past the clone's deadline.
 */
import git, { type PromiseFsClient } from "isomorphic-git";
import { type CloneLimits, type CloneRefusal, formatBytes, formatCount, tooLarge } from "./clone-limits";
import { normalizeFsPath } from "./fs";

export interface CheckoutTarget {
	fs: PromiseFsClient;
	dir: string;
	cache?: object;
}

/** Checks out `ref` (already fetched, HEAD on it) into the work tree; `refuse` records why it stopped. */
export async function checkOutWithin(
	target: CheckoutTarget,
	ref: string,
	limits: Pick<CloneLimits, "maxFiles" | "maxUnpackedBytes" | "timeoutMs">,
	deadline: number,
	refuse: (refusal: CloneRefusal) => CloneRefusal,
	stopped: () => CloneRefusal | null,
): Promise<void> {
	const inTime = () => {
		const earlier = stopped();
		if (earlier) throw earlier;
		if (Date.now() > deadline) throw refuse(tooLarge(`The repository could not be cloned within ${limits.timeoutMs / 1000} s`));
	};
	const head = await git.resolveRef({ ...target, ref: "HEAD" }).catch(() => null);
	if (head === null) return;
	const { commit } = await git.readCommit({ ...target, oid: head });
	await countEntries(target, commit.tree, limits.maxFiles, refuse, inTime);
	await git.checkout({
		...target,
		fs: countingFs(target.fs, limits, refuse),
		ref,
		// One file at a time: a batch holds its files' contents at once, and the writes are serial anyway.
		nonBlocking: true,
		batchSize: 1,
		onProgress: inTime,
	});
}

/** Walks the tree as the checkout will, counting every entry; past `maxFiles` it refuses. */
async function countEntries(
	target: CheckoutTarget,
	tree: string,
	maxFiles: number,
	refuse: (refusal: CloneRefusal) => CloneRefusal,
	inTime: () => void,
): Promise<void> {
	const pending = [tree];
	let entries = 0;
	for (let oid = pending.pop(); oid !== undefined; oid = pending.pop()) {
		inTime();
		for (const entry of (await git.readTree({ ...target, oid })).tree) {
			if (++entries > maxFiles) throw refuse(tooManyFiles(maxFiles));
			if (entry.type === "tree") pending.push(entry.oid);
		}
	}
}

const tooManyFiles = (maxFiles: number) =>
	tooLarge(`The repository has more than ${formatCount(maxFiles)} files and directories, over the limit`);

/** `fs` with its work-tree writes counted (git's own files under `.git` are not the checkout's). */
function countingFs(
	fs: PromiseFsClient,
	limits: Pick<CloneLimits, "maxFiles" | "maxUnpackedBytes">,
	refuse: (refusal: CloneRefusal) => CloneRefusal,
): PromiseFsClient {
	let files = 0;
	let bytes = 0;
	const written = (path: string, size: number) => {
		const at = normalizeFsPath(path);
		if (at === "/.git" || at.startsWith("/.git/")) return;
		if (++files > limits.maxFiles) throw refuse(tooManyFiles(limits.maxFiles));
		bytes += size;
		if (bytes > limits.maxUnpackedBytes) {
			throw refuse(tooLarge(`The repository's files take more than ${formatBytes(limits.maxUnpackedBytes)} checked out`));
		}
	};
	const inner = fs.promises;
	const promises = new Proxy(inner, {
		get(object, name) {
			if (name === "writeFile") {
				return async (path: string, data: Uint8Array | string, options?: unknown) => {
					written(path, typeof data === "string" ? new TextEncoder().encode(data).byteLength : data.byteLength);
					return object.writeFile(path, data, options);
				};
			}
			if (name === "symlink") {
				return async (linkTarget: string, path: string) => {
					written(path, linkTarget.length);
					return object.symlink?.(linkTarget, path);
				};
			}
			const value: unknown = Reflect.get(object, name);
			// Bound: a class instance's methods read their own fields through `this`.
			return typeof value === "function" ? value.bind(object) : value;
		},
	});
	return { promises };
}
