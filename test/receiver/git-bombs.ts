/**
 * Repositories that cost far more unpacked than packed, served by the git server
 * (git-server.ts). Each passes one of the small clone limits the worker tests configure
 * (vitest.config.ts: 2 MB unpacked, 1 MB a file, 200 objects, 200 files and directories) by a
 * little, so it stays small to build and to serve. Zero-filled files pack to almost nothing;
 * identical files and directories are stored once.
 */
const KB = 1024;
const MB = 1024 * KB;

/** A file's content: text, or `zeros` bytes of zeros (the last one `last` when given, so files differ). */
export type BombContent = string | { zeros: number; last?: number };

const grid = (dirs: number, files: number, content: BombContent) =>
	Object.fromEntries(
		Array.from({ length: dirs * files }, (_, i) => [`d${Math.floor(i / files)}/${files > 1 ? `f${i % files}` : "zeros.bin"}`, content]),
	);

/** Path under the server root → the files of its one commit on `main`. */
export const GIT_BOMBS = {
	/** One 3 MB file: over the 1 MB per-file limit by what its header declares. */
	"bomb/large-file.git": { "zeros.bin": { zeros: 3 * MB } },
	/** Four files of 700 KB, each within the per-file limit, 2.8 MB together. */
	"bomb/large-total.git": Object.fromEntries([1, 2, 3, 4].map((n) => [`part-${n}.bin`, { zeros: 700 * KB, last: n }])),
	/** 250 files: 253 objects with their trees and commit. */
	"bomb/many-objects.git": Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`notes/${i}.md`, `note ${i}\n`])),
	/** A 600 KB file and a 1.1 MB one git stores as a delta of it: only the delta's first bytes say 1.1 MB. */
	"bomb/delta.git": { "small.txt": { zeros: 600 * KB }, "big.dat": { zeros: 1100 * KB } },
	/** 15 directories of 15 files, all one blob in one subtree: 4 objects, 240 files and directories. */
	"bomb/wide-tree.git": grid(15, 15, "same\n"),
	/** Ten directories holding one 600 KB file each, one blob: 600 KB unpacked, 6 MB checked out. */
	"bomb/wide-bytes.git": grid(10, 1, { zeros: 600 * KB }),
} satisfies Record<string, Record<string, BombContent>>;
