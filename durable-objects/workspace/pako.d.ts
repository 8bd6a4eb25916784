/** The part of pako 1.x (isomorphic-git's inflater) the pack scan uses: a streaming inflate. */
declare module "pako" {
	export class Inflate {
		constructor(options?: { chunkSize?: number });
		/** Feeds input; stops at the end of the zlib stream, leaving what follows in `strm.avail_in`. */
		push(data: Uint8Array, mode?: boolean): boolean;
		onData(chunk: Uint8Array): void;
		/** True once the stream ended, or failed (then `err` is non-zero). */
		ended: boolean;
		err: number;
		msg: string;
		strm: { avail_in: number };
	}
}
