/** Time is read through here so rules that depend on it can be tested by moving it. */
export interface Clock {
	now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function isoNow(clock: Clock = systemClock): string {
	return clock.now().toISOString();
}
