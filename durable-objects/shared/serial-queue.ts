/**
 * Runs a Durable Object's work one piece at a time, across awaits: the runtime admits other
 * calls while one awaits storage or another object, so work that must not interleave (status
 * moves, subscription changes, git's index and refs) waits its turn here. A failed piece does
 * not stop the queue; its caller gets the error, and `onError` hears of it too.
 */
export interface SerialQueueOptions {
	/** Hears of each failed piece (work whose caller does not await it may log here). */
	onError?: (err: unknown) => void;
	/** Given the queue's tail whenever work is added (an object hands it to `ctx.waitUntil`). */
	onQueued?: (tail: Promise<void>) => void;
}

export class SerialQueue {
	#tail: Promise<void> = Promise.resolve();

	constructor(private readonly options: SerialQueueOptions = {}) {}

	run<T>(work: () => Promise<T>): Promise<T> {
		const next = this.#tail.then(work);
		this.#tail = next.then(
			() => undefined,
			(err: unknown) => this.options.onError?.(err),
		);
		this.options.onQueued?.(this.#tail);
		return next;
	}

	/** Settles once everything queued so far has run. */
	idle(): Promise<void> {
		return this.#tail;
	}
}
