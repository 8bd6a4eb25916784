import type { ClaimRefusalReason, ClaimRequest } from "../../../src/bot-channel/fleet";
import type { SpawnRequest } from "../../../src/bot-channel/protocol";
import { signSpawnTicket } from "../../../src/bot-channel/spawn-ticket";
import { botEndpoints } from "../../../src/bots/bot-endpoints";
import type { RoomStart } from "../../../src/bots/launch";
import { type PublishResult, publishSpawnTicket } from "../../../src/bots/spawn-queue";
import { errorName } from "../../../src/error-text";
import { patchMeetingData } from "../../../src/meetings/meeting-data";
import { isLive, type MeetingStatus } from "../../../src/meetings/status-machine";
import { type Announce, moveMeeting, unannounced } from "../../../src/meetings/status-writes";
import { accountObject } from "../../../src/objects";
import { setting } from "../../../src/settings/deployment-defaults";
import { isStreamingProvider } from "../../../src/shapes/transcription";
import { webhookEventsFor } from "../../../src/webhooks/envelope";
import type { RoomContext, RoomState } from "../context";
import { ROOM_KEYS } from "../storage";
import { PlacementWatch, type WatchHost } from "./watch";

/** What placement (claims, deadlines, respawn) uses of the room, as the Agents SDK's capabilities take a narrow host. */
export type PlacementHost = WatchHost &
	Pick<
		RoomContext,
		"env" | "state" | "saveState" | "storage" | "timers" | "tell" | "applyMove" | "supersede" | "holdClaim" | "announceHeldClaim"
	>;

/** Storage key of what the room keeps of its launch, for claims and respawns. */
export const LAUNCH_KEY = ROOM_KEYS.launch;

export interface StoredLaunch {
	spawn: RoomStart["spawn"];
	/** The planned status the meeting was claimed from (auto-join: `scheduled`); null for a fresh record. */
	plannedFrom: MeetingStatus | null;
	actor: RoomStart["actor"];
}

export type ClaimOutcome = { ok: true; spawn: SpawnRequest } | { ok: false; reason: ClaimRefusalReason; detail: string };

/** What the placement deadline did: an auto-join meeting goes back to its plan, any other fails. */
export type PlacementOutcome = "nothing" | "failed" | "handed_back";

/**
 * How a meeting gets its bot from the fleet (docs/bot-fleet.md#how-a-bot-is-placed): a ticket per
 * attempt on the spawn queue, the first host's claim of the current attempt, the placement
 * deadline before a claim, and after one the watchdog that names a lost host (or respawns).
 * Every method runs inside the room's serial queue.
 */
export class RoomPlacement {
	/** What the waiting attempt shows (`data.placement`). */
	readonly watch: PlacementWatch;

	constructor(private readonly room: PlacementHost) {
		this.watch = new PlacementWatch(room);
	}

	private get placementTimeoutS(): number {
		return setting(this.room.env, "BOT_PLACEMENT_TIMEOUT_S");
	}

	deadline(nowMs = Date.now()): number {
		return nowMs + this.placementTimeoutS * 1000;
	}

	/**
	 * Puts the current attempt's ticket on the queue, signed, with a new id the room keeps: only
	 * that ticket claims the attempt. Its `not_after` is the placement deadline.
	 */
	async publishTicket(state: RoomState): Promise<PublishResult> {
		const due = (await this.room.timers.due("placement")) ?? this.deadline();
		const secretsKey = this.room.env.SECRETS_KEY;
		if (!secretsKey) return { ok: false, detail: "SECRETS_KEY is not configured: the spawn ticket cannot be signed" };
		const ticket = await signSpawnTicket(secretsKey, {
			meeting_id: state.meetingId,
			attempt: state.attempt,
			not_after: new Date(due).toISOString(),
		});
		await this.room.saveState({ ...state, ticketId: ticket.ticket_id });
		return publishSpawnTicket(this.room.env, ticket);
	}

	/**
	 * The first host to claim the current attempt with the ticket published for it gets its spawn
	 * request; anyone else a reason. The ticket's signature was checked by the claim route.
	 */
	async claim(request: ClaimRequest): Promise<ClaimOutcome> {
		const state = await this.room.state();
		const launch = await this.room.storage.get<StoredLaunch>(LAUNCH_KEY);
		if (!state || !launch || !isLive(state.machine.status) || state.machine.status === "stopping") {
			return { ok: false, reason: "ended", detail: "the meeting no longer wants a bot" };
		}
		if (request.attempt !== state.attempt) {
			return { ok: false, reason: "stale", detail: `attempt ${request.attempt} is not the meeting's current attempt` };
		}
		// A ticket of an earlier take-over of the same attempt (a plan handed back, then started again).
		if (!state.ticketId || request.ticket.ticket_id !== state.ticketId) {
			return { ok: false, reason: "stale", detail: `the ticket is not the one published for attempt ${state.attempt}` };
		}
		if (state.claim) return { ok: false, reason: "taken", detail: `attempt ${state.attempt} is already claimed` };
		const { transcription, transcription_stream, ...endpoints } = await botEndpoints(this.room.env, state.meetingId, state.attempt);
		const claimed: RoomState = {
			...state,
			claim: { host_id: request.host_id, version: request.version, at: new Date().toISOString() },
			connected: false,
			// Each attempt's bot numbers its messages from 1.
			lastAppliedSeq: 0,
		};
		await this.room.saveState(claimed);
		await this.room.timers.clear("placement");
		await this.watch.claimed(claimed);
		// An auto-join's step to `requested` goes out now that a bot is on its way. Should telling
		// fail, the claim stands: the step stays held and goes out before the bot's first report.
		await this.room.announceHeldClaim(claimed).catch((err: unknown) => {
			console.error("held claim step not announced yet", state.meetingId, errorName(err));
		});
		// The bot must open its channel within the report timeout, or its host counts as lost.
		await this.room.timers.set("watchdog", Date.now() + setting(this.room.env, "BOT_REPORT_TIMEOUT_S") * 1000);
		this.room.supersede(state.attempt);
		// The bot transcribes through the Worker, which alone holds the endpoint's token (a launch
		// stored before the relay holds the endpoint itself there: any value means the same).
		const spawn = {
			...launch.spawn,
			attempt: state.attempt,
			...endpoints,
			transcription: launch.spawn.transcription ? transcription : null,
			// A streaming provider's key stays in the Worker too: the bot gets the relay.
			transcription_stream: launch.spawn.engine && isStreamingProvider(launch.spawn.engine) ? transcription_stream : null,
			vocabulary: launch.spawn.vocabulary ?? [],
		};
		return { ok: true, spawn };
	}

	/** No host claimed the current attempt in time. */
	async placementExpired(): Promise<PlacementOutcome> {
		const state = await this.room.state();
		if (!state || !isLive(state.machine.status) || state.claim) return "nothing";
		const launch = await this.room.storage.get<StoredLaunch>(LAUNCH_KEY);
		const planned = launch?.actor === "scheduler" && state.attempt === 1 && state.machine.status === "requested";
		if (planned && (await this.giveBack())) return "handed_back";
		// What it waited on at the end, from the reports as they are now.
		const waitedOn = await this.watch.detailNow(state);
		await this.watch.stop();
		await this.room.applyMove({
			to: "failed",
			actor: "system",
			failure_cause: "no_bot_capacity",
			reason: `no bot host took the meeting within ${this.placementTimeoutS} s${waitedOn ? `; at the end: ${waitedOn}` : ""}`,
		});
		return "failed";
	}

	/**
	 * The watchdog after a claim: the bot never connected within the report timeout, or its
	 * channel stayed gone past the reconnect grace. Its host is lost: one more attempt when
	 * BOT_MAX_RESPAWNS allows, else the meeting fails as a teardown with `failure_cause: bot_host_lost`.
	 */
	async hostLost(): Promise<void> {
		const state = await this.room.state();
		if (!state || !isLive(state.machine.status)) return;
		const why = state.connected
			? `the bot's channel stayed closed for more than ${setting(this.room.env, "BOT_RECONNECT_GRACE_S")} s`
			: `the bot did not connect within ${setting(this.room.env, "BOT_REPORT_TIMEOUT_S")} s of its claim`;
		const host = state.claim ? ` (bot host ${state.claim.host_id})` : "";
		if (state.claim && state.machine.status !== "stopping" && state.respawns < setting(this.room.env, "BOT_MAX_RESPAWNS")) {
			const published = await this.respawn(state);
			if (published.ok) return;
			await this.lost(`${why}${host}, and no new bot could be asked for: ${published.detail}`);
			return;
		}
		await this.lost(`${why}${host}`);
	}

	private lost(reason: string): Promise<boolean> {
		return this.room.applyMove({ to: "failed", actor: "system", failure_cause: "bot_host_lost", reason });
	}

	/** The next attempt: a new ticket for another host; the meeting keeps its status, record and transcript. */
	private async respawn(state: RoomState): Promise<PublishResult> {
		const next: RoomState = { ...state, attempt: state.attempt + 1, claim: null, connected: false, respawns: state.respawns + 1 };
		await this.room.saveState(next);
		await this.room.timers.clear("watchdog", "lease");
		await this.room.timers.set("placement", this.deadline());
		await this.watch.begin(next.attempt);
		this.room.supersede(next.attempt);
		// What the user sees: the record notes how many bots the meeting took (docs/bot-fleet.md).
		await patchMeetingData(this.room.env, state.meetingId, { bot_respawns: next.respawns }, { updatedAt: false });
		console.warn("bot host lost, asking for another bot", state.meetingId, next.attempt);
		const published = await this.publishTicket(next);
		if (published.ok) await this.watch.look();
		return published;
	}

	/**
	 * Undoes a takeover whose bot never got going (the table's give-back to a plan); false when
	 * the meeting has moved on since. Its undoing is announced only if the step to `requested`
	 * was (an auto-join's is held until a host claims the attempt, so nobody saw it).
	 */
	async giveBack(): Promise<boolean> {
		const state = await this.room.state();
		if (state?.machine.status !== "requested") return false;
		const announced = !(await this.room.claimHeld());
		const launch = await this.room.storage.get<StoredLaunch>(LAUNCH_KEY);
		const back = launch?.plannedFrom ?? "scheduled";
		const announce: Announce = async (row, step, { before, after }) => this.room.tell(row, step, webhookEventsFor(before, after.status));
		const outcome = await moveMeeting(
			this.room.env,
			{ meetingId: state.meetingId, current: state.machine, ask: { to: back, actor: launch?.actor ?? "scheduler" } },
			announced ? announce : unannounced,
		);
		if (!outcome.ok) return false;
		await this.room.holdClaim(null);
		await this.room.storage.delete([ROOM_KEYS.state, LAUNCH_KEY]);
		await this.room.timers.clear("watchdog", "placement");
		await this.watch.stop();
		if (state.link) await accountObject(this.room.env, state.userId).releaseBotSlot(state.link);
		return true;
	}
}
