import type { BotSegment, BotToRoom } from "../../src/bot-channel/protocol";
import { errorName } from "../../src/error-text";
import type { WebhookEvent } from "../../src/webhooks/delivery-log";
import {
	type LiveWebhookEventType,
	liveEventsWanted,
	participantEvent,
	segmentDigest,
	TRANSCRIPT_BATCH,
	transcriptSegmentsEvent,
	type WebhookLiveMeeting,
	type WebhookSegment,
	webhookSegment,
} from "../../src/webhooks/live-events";
import type { RoomContext } from "./context";
import { ROOM_KEYS } from "./storage";

/** What the live events use of the room: its storage and timers, and the relay that hands notices to the outbox. */
export type LiveWebhooksHost = Pick<RoomContext, "storage" | "timers" | "webhooks" | "env" | "sendNotices">;

/** The meeting's live events so far, and the transcript batch still open (kept under ROOM_KEYS.liveWebhooks). */
interface LiveWebhookState {
	userId: number;
	meeting: WebhookLiveMeeting;
	/** The sequence number of the meeting's last live event. */
	sequence: number;
	/** Confirmed lines not yet in an event, oldest first, one per segment id. */
	batch: WebhookSegment[];
}

/** The version last put in a batch for a segment id, what that version said, and when the segment was first seen. */
interface SentVersion {
	version: number;
	digest: string;
	created_at: string;
}

/** What the room's state (context.ts RoomState) tells of its meeting. */
interface RoomMeeting {
	meetingId: number;
	userId: number;
	platform: string;
	nativeMeetingId: string | null;
}

/** How long the room trusts what it read of the owner's webhook filter. */
const FILTER_TTL_MS = 30_000;

const encoder = new TextEncoder();

/**
 * The meeting's live webhook events (docs/webhooks.md#live-events), made by the room as the bot's
 * messages are applied: storage writes only, so nothing here waits for a receiver, and the /ws
 * frames have gone out before (inbox.ts deliverAhead). A batch is sealed into an event (its
 * sequence number and body fixed) when it is full or when its `live_webhooks` timer fires, and
 * stored as a relay notice in the same write; the relay hands it to the account's outbox, which
 * delivers a meeting's live events one after the other. Everything is in room storage, so an
 * evicted room picks up where it was.
 */
export class RoomLiveWebhooks {
	#wanted: { userId: number; until: number; events: Set<LiveWebhookEventType> } | undefined;

	constructor(private readonly room: LiveWebhooksHost) {}

	private get storage(): DurableObjectStorage {
		return this.room.storage;
	}

	private get timers(): LiveWebhooksHost["timers"] {
		return this.room.timers;
	}

	/** Hands the stored notices to the outbox after the current work (context.ts sendNotices). */
	private send(): Promise<void> {
		return this.room.sendNotices();
	}

	/** A stored segment: a confirmed line joins the open batch, unless this version of it was already sent. */
	async segmentStored(state: RoomMeeting, segment: BotSegment, createdAt: string): Promise<void> {
		if (!segment.completed || !(await this.wanted(state.userId)).has("transcript.segments")) return;
		const versionKey = ROOM_KEYS.segmentVersion(segment.segment_id);
		const digest = await segmentDigest(segment);
		const sent = await this.storage.get<SentVersion>(versionKey);
		if (sent?.digest === digest) return;
		const version = (sent?.version ?? 0) + 1;
		// A correction keeps the first version's `created_at`, as the stored row does (the inbox forgets it once confirmed).
		const firstSeen = sent?.created_at ?? createdAt;
		const item = webhookSegment(segment, firstSeen, version, new Date().toISOString());
		const live = await this.load(state);
		// A correction of a line still in the batch replaces it there: only its newest version goes.
		live.batch = [...live.batch.filter((s) => s.segment_id !== item.segment_id), item];
		const entries: Record<string, unknown> = { [versionKey]: { version, digest, created_at: firstSeen } satisfies SentVersion };
		const full =
			live.batch.length >= TRANSCRIPT_BATCH.segments || encoder.encode(JSON.stringify(live.batch)).length >= TRANSCRIPT_BATCH.bytes;
		if (full) await this.seal(live, entries);
		await this.storage.put({ ...entries, [ROOM_KEYS.liveWebhooks]: live });
		if (full) {
			await this.timers.clear("live_webhooks");
			await this.send();
		} else if ((await this.timers.due("live_webhooks")) === undefined) {
			await this.timers.set("live_webhooks", Date.now() + TRANSCRIPT_BATCH.waitMs);
		}
	}

	/** A participant joined or left: its event, after the lines confirmed before it. */
	async participantChanged(state: RoomMeeting, message: Extract<BotToRoom, { type: "participant" }>): Promise<void> {
		const type = message.event === "join" ? "participant.joined" : "participant.left";
		if (!(await this.wanted(state.userId)).has(type)) return;
		const live = await this.load(state);
		const entries: Record<string, unknown> = {};
		const sealed = live.batch.length > 0;
		if (sealed) await this.seal(live, entries);
		live.sequence += 1;
		Object.assign(entries, this.room.webhooks.entry(live.userId, await participantEvent(live.meeting, live.sequence, message)));
		await this.storage.put({ ...entries, [ROOM_KEYS.liveWebhooks]: live });
		if (sealed) await this.timers.clear("live_webhooks");
		await this.send();
	}

	/** The `live_webhooks` timer: the open batch goes out as it is. */
	async batchDue(): Promise<void> {
		const live = await this.storage.get<LiveWebhookState>(ROOM_KEYS.liveWebhooks);
		if (!live || live.batch.length === 0) return;
		const entries: Record<string, unknown> = {};
		await this.seal(live, entries);
		await this.storage.put({ ...entries, [ROOM_KEYS.liveWebhooks]: live });
		await this.send();
	}

	/** Turns the open batch into the meeting's next event, its notice added to `entries`; the batch is emptied. */
	private async seal(live: LiveWebhookState, entries: Record<string, unknown>): Promise<void> {
		live.sequence += 1;
		const event: WebhookEvent = await transcriptSegmentsEvent(live.meeting, live.sequence, live.batch);
		Object.assign(entries, this.room.webhooks.entry(live.userId, event));
		live.batch = [];
	}

	private async load(state: RoomMeeting): Promise<LiveWebhookState> {
		return (
			(await this.storage.get<LiveWebhookState>(ROOM_KEYS.liveWebhooks)) ?? {
				userId: state.userId,
				meeting: { id: state.meetingId, platform: state.platform, native_meeting_id: state.nativeMeetingId },
				sequence: 0,
				batch: [],
			}
		);
	}

	/** The live events the owner takes, read again after FILTER_TTL_MS (a filter changed mid-meeting applies within it). */
	private async wanted(userId: number): Promise<Set<LiveWebhookEventType>> {
		const now = Date.now();
		if (this.#wanted?.userId === userId && this.#wanted.until > now) return this.#wanted.events;
		try {
			const events = await liveEventsWanted(this.room.env, userId);
			this.#wanted = { userId, until: now + FILTER_TTL_MS, events };
			return events;
		} catch (err) {
			// Settings unreadable: this message goes without live events rather than hold the bot's channel.
			console.warn("webhook filter unavailable, live events skipped", userId, errorName(err));
			return new Set();
		}
	}
}
