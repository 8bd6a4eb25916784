/**
 * Everything a MeetingRoom keeps in its storage, in one place. Code and tests name the keys
 * through this map, never by string (test/worker/durable-objects/storage-maps.test.ts checks it
 * against what the object keeps). The meeting's stream log, its copilot and its summary job are
 * kept by the MeetingStream: meeting-stream/storage.ts.
 */
import { KV_TIMER_KEYS } from "../shared/alarm-timers";

export const ROOM_STORAGE = {
	keys: {
		/** The room's state (context.ts RoomState): the meeting, its status, attempt, claim, last applied seq. */
		state: "room",
		/** The spawn ticket put out for the current attempt (placement/index.ts StoredLaunch). */
		launch: "launch",
		/** What the current attempt shows while it waits for a host, and the last reason announced (placement/watch.ts). */
		placementWait: "placementWait",
		/** An auto-join's step to `requested`, held back until a host claims the attempt (context.ts holdClaim). */
		heldClaimStep: "heldClaimStep",
		/** A scheduled meeting's auto-join plan (auto-join.ts StoredPlan), and the plan whose bot was put out. */
		plan: "plan",
		placedPlan: "placedPlan",
		/** Commands kept for a bot that is away (command-queue.ts): the queue's counters, then each command's parts. */
		commandQueue: "commandQueue",
		commandParts: "commandQueue:",
		/** Commands stored by gateways before commands had keys of their own: one value holding them all. */
		queuedCommands: "queuedCommands",
		/** The users whose LiveFeed watches the meeting (fanout.ts). */
		subscribers: "subscribers",
		/** Webhook events on their way to the owner's outbox, by time (webhook-relay.ts). */
		noticePrefix: "notice:",
		/** The meeting's live webhook events: their last sequence number and the open transcript batch (live-webhooks.ts). */
		liveWebhooks: "liveWebhooks",
		/** Per confirmed segment id, the version last put in a `transcript.segments` batch and what it said (live-webhooks.ts). */
		segmentVersionPrefix: "segmentVersion:",
		/** A completed meeting's `meeting.completed` event, held until its stream stored the summary (completion-hold.ts). */
		heldCompletion: "heldCompletion",
		/** The screenshot names each attempt's bot stored (screenshots.ts), and whose screenshots the retention timer deletes. */
		screenshotNamesPrefix: "screenshots:",
		screenshotOwner: "screenshotOwner",
		/** Seconds of audio the meeting's bots sent through the transcription relay (relay-meter.ts). */
		relayedAudio: "relayedAudio",
		/** The room's named timers (RoomTimerName), and each one's retry count under the prefix. */
		timers: KV_TIMER_KEYS.timers,
		timerRetriesPrefix: KV_TIMER_KEYS.retriesPrefix,
	},
	tables: {},
} as const;

/** The room's keys, by their map names; the two kept per attempt or per timer are made by function. */
export const ROOM_KEYS = {
	...ROOM_STORAGE.keys,
	screenshotNames: (attempt: number) => `${ROOM_STORAGE.keys.screenshotNamesPrefix}${attempt}`,
	timerRetries: (name: string) => `${ROOM_STORAGE.keys.timerRetriesPrefix}${name}`,
	segmentVersion: (segmentId: string) => `${ROOM_STORAGE.keys.segmentVersionPrefix}${segmentId}`,
} as const;

/**
 * The room's timers, on its one alarm (docs/status-machine.md#timers-that-move-a-meeting). `placement`: how long a
 * spawn ticket waits for a host's claim. `watchdog`: after a claim, how long the bot may take to
 * connect, or stay away from its channel. `stop_deadline`: how long a stopping bot has to leave.
 * `auto_join`: when a scheduled meeting's bot is sent. `notify`: the webhook relay's retry.
 * `placement_refresh`: while the attempt waits, when `data.placement` is read again from the hosts' reports.
 * `help`: how long a bot may sit in `needs_help` (help.ts). `summary_release`: the latest a completed
 * meeting's held `meeting.completed` waits for its stream to store the summary (completion-hold.ts).
 * `screenshots_expire`: SCREENSHOT_RETENTION_DAYS after the meeting ended, its screenshots are deleted (screenshots.ts).
 * `lease`: while a bot is connected, when the room next checks that its channel is still there (channel.ts).
 * `live_webhooks`: when the open `transcript.segments` batch goes out (live-webhooks.ts).
 */
export const ROOM_TIMERS = [
	"placement",
	"placement_refresh",
	"watchdog",
	"lease",
	"stop_deadline",
	"auto_join",
	"notify",
	"live_webhooks",
	"help",
	"summary_release",
	"screenshots_expire",
] as const;
export type RoomTimerName = (typeof ROOM_TIMERS)[number];
