/**
 * Waits on events for every test tier (workerd, Node, the examples): a test waits for the thing it expects
 * to happen, not for a fixed time. Plain TypeScript with no runtime-specific API, so each tier imports it.
 */

/** How often the shared waits look again: a wait that polls an API route stays under the gateway's 20 requests a second. */
const POLL_MS = 50;

/** Long enough for a busy machine; shorter than every tier's test timeout, so a miss fails naming `what`. */
const DEFAULT_MS = 20_000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns anything but undefined, and returns that; fails naming `what` after `ms`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = DEFAULT_MS): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
		await pause(POLL_MS);
	}
}

/** Polls `holds` until it is true; fails naming `what` after `ms`. */
export async function until(what: string, holds: () => Promise<boolean> | boolean, ms = DEFAULT_MS): Promise<void> {
	await eventually(what, async () => ((await holds()) ? true : undefined), ms);
}
