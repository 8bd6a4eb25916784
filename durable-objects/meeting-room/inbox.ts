import { type BotSegment, BotToRoom, botEnding, ROOM_CLOSE, type RoomToBot } from "../../src/bot-channel/protocol";
import { errorText } from "../../src/error-text";
import { chatMessage, interactiveEvent, type LiveSegment, type MeetingRef, transcriptBundle } from "../../src/live/feed-messages";
import type { MeetingFrame } from "../../src/live/frames";
import { noteRecordingStopped, noteTranscriptionFallback } from "../../src/meetings/meeting-store";
import { isTerminal } from "../../src/meetings/status-machine";
import { insertChatMessage, liveSegment, upsertParticipant, upsertSegment } from "../../src/meetings/transcript-store";
import type { RoomContext, RoomState } from "./context";
import type { RoomLiveWebhooks } from "./live-webhooks";

/** What the bot channel's messages use of the room. */
export type InboxHost = Pick<
	RoomContext,
	"env" | "state" | "saveState" | "applyMove" | "attemptOf" | "botSockets" | "commands" | "fanout" | "ref" | "stream"
>;

type Sequenced = Exclude<BotToRoom, { type: "hello" }>;
/** Open segments whose first-seen time the room keeps at most. */
const FIRST_SEEN_MAX = 1000;
/** Only recorded, never sent to /ws as they arrive: a status goes out with its move; a stopped recording or engine is kept in the record. */
const RECORDED_ONLY = ["status", "recording", "transcription"] as const;
/** What reaches /ws watchers as it arrives. */
type Live = Exclude<Sequenced, { type: (typeof RECORDED_ONLY)[number] }>;
const isLive = (message: BotToRoom): message is Live =>
	message.type !== "hello" && !(RECORDED_ONLY as readonly string[]).includes(message.type);

/**
 * What the room does with each message on the bot channel. Messages carry a per-attempt seq
 * and are applied strictly in order: only `lastAppliedSeq + 1` is applied. One at or below the
 * last applied seq was already applied and is only acknowledged again, so a resend never
 * duplicates anything; one further ahead means something before it is missing, and the bot is
 * told to resend from its last ack, so nothing is ever skipped.
 */
export class BotChannelInbox {
	/** Open drafts per speaker, for the live bundle's `pending` list. */
	private readonly drafts = new Map<string, Map<string, LiveSegment>>();
	/**
	 * When each open segment was first seen, so its live frames and its stored row carry one
	 * `created_at` (a confirmation keeps its draft's). In memory: a room that woke up meanwhile
	 * stamps a segment's later frames with the time it saw it again, while the row keeps the first.
	 */
	private readonly firstSeen = new Map<string, string>();
	/** Sockets told to resend: what they already sent is queued behind the failure and must not be applied. */
	private readonly refused = new WeakSet<WebSocket>();
	/**
	 * Live delivery runs ahead of storage: the highest seq whose /ws frames went out, and the
	 * meeting they name. In memory only: after a wake-up the next message is delivered by apply.
	 */
	private delivered: { seq: number; meetingId: number; ref: MeetingRef } | undefined;

	constructor(
		private readonly room: InboxHost,
		/** The meeting's live webhook events, fed the confirmed lines and participant changes. */
		private readonly liveWebhooks: RoomLiveWebhooks,
	) {}

	/**
	 * Sends a segment, chat line, participant change or bot event to /ws watchers the moment it
	 * arrives, before it waits its turn behind the previous message's D1 write: only the next seq
	 * after the last one delivered, so frames stay in the bot's order and a resend is never sent
	 * twice. The message is still applied (and acked once durable) in order by `receive`; anything
	 * this skips (a status, a gap, a room that just woke) is delivered there instead.
	 */
	deliverAhead(socket: WebSocket, message: BotToRoom | undefined): void {
		const delivered = this.delivered;
		if (!message || !delivered || this.refused.has(socket) || !this.room.fanout.loaded()) return;
		// Only the one open channel runs ahead; a socket on its way out waits for `receive` to judge it.
		const open = this.room.botSockets().filter((s) => s.readyState === WebSocket.OPEN);
		if (open.length !== 1 || open[0] !== socket) return;
		if (!isLive(message) || message.seq !== delivered.seq + 1) return;
		void this.deliver(delivered.meetingId, delivered.ref, message);
		delivered.seq = message.seq;
	}

	/** Sends a message's frames; the calls go out before this returns (RoomFanout.publish), in order. */
	private deliver(meetingId: number, ref: MeetingRef, message: Live): Promise<unknown> {
		const fanout = this.room.fanout;
		switch (message.type) {
			case "segment":
				return Promise.all(this.bundles(ref, message.segment).map((bundle) => fanout.publish(meetingId, bundle)));
			case "chat": {
				const m = message.message;
				const frames: MeetingFrame[] = [chatMessage(ref, m)];
				if (!m.is_from_bot) frames.push(interactiveEvent(ref, "chat.received", { sender: m.sender, text: m.text, timestamp: m.timestamp }));
				return Promise.all(frames.map((frame) => fanout.publish(meetingId, frame)));
			}
			case "participant":
				return fanout.publish(
					meetingId,
					interactiveEvent(ref, `participant.${message.event === "join" ? "joined" : "left"}`, { participant: message.participant }),
				);
			case "event":
				return fanout.publish(meetingId, interactiveEvent(ref, message.name, message.payload));
		}
	}

	/** Delivers a message not delivered ahead, then remembers its seq as the last one out. */
	private async deliverInTurn(state: RoomState, message: Live): Promise<void> {
		const ref = this.room.ref(state);
		const last = this.delivered?.meetingId === state.meetingId ? this.delivered.seq : 0;
		const sent = message.seq > last ? this.deliver(state.meetingId, ref, message) : undefined;
		this.delivered = { seq: Math.max(last, message.seq), meetingId: state.meetingId, ref };
		await sent;
	}

	/**
	 * A new bot connection: delivery ahead starts over with it (a new attempt numbers its
	 * messages afresh). A resend after a failed write may then reach watchers twice, as before.
	 */
	channelOpened(): void {
		this.delivered = undefined;
	}

	/** A message off the channel, parsed once for its delivery ahead and its turn; undefined when unreadable. */
	read(text: string): BotToRoom | undefined {
		try {
			return BotToRoom.parse(JSON.parse(text));
		} catch {
			return undefined;
		}
	}

	async receive(socket: WebSocket, text: string, message = this.read(text)): Promise<void> {
		if (this.refused.has(socket)) return;
		if (!message) {
			await this.unreadable(socket, text);
			return;
		}
		const state = await this.room.state();
		if (!state) return;
		// A bot of an earlier attempt (a respawn took over) has nothing more to say here: it leaves.
		if (this.room.attemptOf(socket) !== state.attempt) {
			socket.close(ROOM_CLOSE.superseded, "a newer bot took over the meeting");
			return;
		}
		if (message.type === "hello") {
			send(socket, { type: "ack", seq: state.lastAppliedSeq });
			for (const command of await this.room.commands.drain()) sendText(socket, command);
			return;
		}
		if (message.seq > state.lastAppliedSeq + 1) {
			this.refuse(socket, "out of order, resend from the last ack");
			return;
		}
		if (message.seq === state.lastAppliedSeq + 1) {
			try {
				await this.apply(state, message);
			} catch (err) {
				// Not durable, so not acknowledged: the bot reconnects and resends from its last ack.
				console.error("bot message not applied", errorText(err));
				this.refuse(socket, "could not persist, resend");
				return;
			}
			const latest = await this.room.state();
			if (latest) await this.room.saveState({ ...latest, lastAppliedSeq: message.seq });
		}
		send(socket, { type: "ack", seq: message.seq });
		const after = await this.room.state();
		if (after && isTerminal(after.machine.status)) socket.close(ROOM_CLOSE.meetingEnded, "meeting ended");
	}

	/** Stops reading a socket: everything after the failed message arrives again on the next connection. */
	private refuse(socket: WebSocket, reason: string): void {
		this.refused.add(socket);
		socket.close(ROOM_CLOSE.resend, reason);
	}

	/**
	 * A message no resend can fix (it fails the schema). Were it never acked, the bot would
	 * resend it forever and nothing after it could be applied, so the next seq is skipped (and
	 * acked) with an error frame instead.
	 */
	private async unreadable(socket: WebSocket, text: string): Promise<void> {
		send(socket, { type: "error", detail: "unreadable bot channel message" });
		const seq = seqOf(text);
		const state = await this.room.state();
		if (seq === undefined || !state || seq > state.lastAppliedSeq + 1) return;
		if (seq === state.lastAppliedSeq + 1) {
			console.warn("skipped an unreadable bot message", state.meetingId, seq);
			await this.room.saveState({ ...state, lastAppliedSeq: seq });
		}
		send(socket, { type: "ack", seq });
	}

	private async apply(state: RoomState, message: Sequenced): Promise<void> {
		const env = this.room.env;
		// After the end (the room ended the meeting while the bot was still sending, say a transcription
		// flushed past the stop deadline) the record still takes what was said, but nobody is told live:
		// nothing follows the final status on /ws, nor `meeting-end` on the meeting's stream.
		const live = !isTerminal(state.machine.status);
		switch (message.type) {
			case "status":
				if (!live) return;
				await this.room.applyMove({
					to: message.status,
					actor: "bot",
					...botEnding(message),
					failure_stage: message.failure_stage,
					join_step: message.join_step,
					reason: message.reason,
					help: message.help,
					diagnostics: message.diagnostics,
				});
				return;
			case "segment": {
				// Delivered first (latency), then D1, then the MeetingStream's log; the ack waits for both, so an
				// acked segment is in the stream (docs/meeting-stream.md#where-it-lives). The log is the
				// other object's storage: no write of it holds back what this room sends (its output gate).
				if (live) await this.deliverInTurn(state, message);
				const id = message.segment.segment_id;
				const createdAt = this.createdAt(id);
				await upsertSegment(env, state.meetingId, message.segment, createdAt).run();
				// A confirmed line joins the meeting's webhook batch (storage only: the receiver is never waited for).
				await this.liveWebhooks.segmentStored(state, message.segment, createdAt);
				// A confirmed segment is done (a late rebinding of it is rare): its time need not be kept.
				if (message.segment.completed) this.firstSeen.delete(id);
				// The stream object builds its line, logs it and hands it to its copilot without waiting for it.
				if (live) await this.room.stream(state.meetingId).transcriptStored(message.segment);
				return;
			}
			case "chat": {
				if (live) await this.deliverInTurn(state, message);
				await insertChatMessage(env, state.meetingId, message.message);
				return;
			}
			case "participant": {
				if (live) await this.deliverInTurn(state, message);
				await upsertParticipant(env, state.meetingId, message);
				await this.liveWebhooks.participantChanged(state, message);
				return;
			}
			case "event":
				if (live) await this.deliverInTurn(state, message);
				return;
			case "recording": {
				// The meeting's record says why its recording is shorter than the meeting.
				await noteRecordingStopped(env, state.meetingId, { reason: message.reason, at: message.timestamp, bytes: message.bytes });
				return;
			}
			case "transcription":
				// The meeting's record says why its transcript comes from captions, not the engine it was sent with.
				await noteTranscriptionFallback(env, state.meetingId, { engine: message.engine, reason: message.reason, at: message.timestamp });
				return;
		}
	}

	/** The segment's first-seen time, noted now if it is new. */
	private createdAt(segmentId: string): string {
		let at = this.firstSeen.get(segmentId);
		if (!at) {
			at = new Date().toISOString();
			this.firstSeen.set(segmentId, at);
			// Drafts whose confirmation never came (a bot that vanished) are forgotten oldest first.
			if (this.firstSeen.size > FIRST_SEEN_MAX) this.firstSeen.delete(this.firstSeen.keys().next().value as string);
		}
		return at;
	}

	/**
	 * The speaker's bundle for a segment. A segment that arrives under another speaker than its
	 * open draft (a provisional label rebound to a name) leaves that speaker's pending list
	 * first, and that speaker's bundle is sent again without it, so no client keeps the draft.
	 */
	private bundles(ref: MeetingRef, segment: BotSegment) {
		const out: ReturnType<typeof transcriptBundle>[] = [];
		for (const [speaker, open] of this.drafts) {
			if (speaker === segment.speaker || !open.delete(segment.segment_id)) continue;
			out.push(transcriptBundle(ref, speaker, [], [...open.values()]));
			if (open.size === 0) this.drafts.delete(speaker);
		}
		const live = liveSegment(segment, this.createdAt(segment.segment_id));
		let open = this.drafts.get(segment.speaker);
		if (!open) {
			open = new Map();
			this.drafts.set(segment.speaker, open);
		}
		if (segment.completed) open.delete(segment.segment_id);
		else open.set(segment.segment_id, live);
		out.push(transcriptBundle(ref, segment.speaker, segment.completed ? [live] : [], [...open.values()]));
		return out;
	}
}

function send(socket: WebSocket, message: RoomToBot | { type: "error"; detail: string }): void {
	sendText(socket, JSON.stringify(message));
}

function sendText(socket: WebSocket, text: string): void {
	try {
		socket.send(text);
	} catch {
		// Closed meanwhile (meeting ended, or refused): the bot resends what it still needs.
	}
}

/** The seq of a message that failed the schema, if it has a usable one. */
function seqOf(text: string): number | undefined {
	try {
		const seq = (JSON.parse(text) as { seq?: unknown } | null)?.seq;
		return typeof seq === "number" && Number.isSafeInteger(seq) && seq > 0 ? seq : undefined;
	} catch {
		return undefined;
	}
}
