/**
 * The moments the automatic leave rules (limits.ts) count from, kept by the session's watch loop
 * from one reading of the page to the next: since when the bot waits in the lobby, was admitted,
 * is alone, last heard someone; and who has been in the call.
 */
import type { Attendance } from "./limits.ts";
import { ParticipantTracker } from "./transcript.ts";

export class AttendanceClock {
	readonly participants = new ParticipantTracker();
	private readonly startedAt: number;
	private lobbySince: number | null = null;
	private admittedAt: number | null = null;
	private aloneSince: number | null = null;
	private lastSpeechAt = 0;

	constructor(startedAt: number) {
		this.startedAt = startedAt;
	}

	/** How long the bot has been in the call, or null before admission (the drivers read some screens only after a while in it). */
	admittedForMs(now: number): number | null {
		return this.admittedAt === null ? null : now - this.admittedAt;
	}

	enteredLobby(now: number): void {
		this.lobbySince = now;
	}

	admitted(now: number): void {
		this.admittedAt = now;
		this.lastSpeechAt = now;
	}

	/** A reading of the call: someone speaking or captioned, and whether the bot is alone in it. */
	sawCall(speaking: boolean, now: number): void {
		if (speaking) this.lastSpeechAt = now;
		if (this.participants.count > 0) this.aloneSince = null;
		else if (this.participants.everJoined) this.aloneSince ??= now;
	}

	/** Back from asking for help: the limits that stood still while the bot asked count again from now. */
	resume(now: number): void {
		if (this.lobbySince !== null) this.lobbySince = now;
		if (this.aloneSince !== null) this.aloneSince = now;
		this.lastSpeechAt = now;
	}

	/**
	 * Where the bot is now, as the leave rules see it. While it asks for help (`helping`) the bot is
	 * neither waiting in the lobby nor in the call: only max_bot_time counts.
	 */
	attendance(now: number, o: { helping: boolean; inLobby: boolean; waitingForHostMs: number | null }): Attendance {
		const inLobbyMs = !o.helping && o.inLobby && this.lobbySince !== null ? now - this.lobbySince : null;
		const aloneMs = this.aloneSince === null ? null : now - this.aloneSince;
		const { everJoined } = this.participants;
		const call =
			o.helping || this.admittedAt === null
				? null
				: { sinceAdmittedMs: now - this.admittedAt, everJoined, aloneMs, silentMs: now - this.lastSpeechAt };
		return { sinceStartMs: now - this.startedAt, inLobbyMs, waitingForHostMs: o.helping ? null : o.waitingForHostMs, call };
	}
}
