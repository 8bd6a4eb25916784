/**
 * Runs a Durable Object's work one piece at a time, across awaits: the runtime admits other
 * calls while one awaits storage or another object, so work that must not interleave (status
 * moves, subscription changes) waits its turn here. A failed piece does not stop the queue.
 */
export class SerialQueue {
	private tail: Promise<unknown> = Promise.resolve();

	run<T>(work: () => Promise<T>): Promise<T> {
		const next = this.tail.then(work, work);
		this.tail = next.catch(() => undefined);
		return next;
	}
}
