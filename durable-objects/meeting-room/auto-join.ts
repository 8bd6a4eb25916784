import type { Platform } from "../../src/bot-channel/protocol";
import { accountCap, type BotOptions, launchBot, type RoomStart } from "../../src/bots/launch";
import type { PublishResult } from "../../src/bots/spawn-queue";
import { ApiError } from "../../src/errors";
import { isStale, JOIN_LEAD_MS, LATE_LIMIT_MS, mayAutoJoin } from "../../src/meetings/auto-join-rule";
import { patchMeetingData } from "../../src/meetings/meeting-data";
import { findOwnedMeeting } from "../../src/meetings/meeting-store";
import { noteAutoJoinError } from "../../src/meetings/status-writes";
import type { RoomContext } from "./context";

/** What auto-join uses of the room. */
export type AutoJoinHost = Pick<RoomContext, "env" | "serial" | "storage" | "tell" | "timers">;

import { ROOM_KEYS } from "./storage";

const RETRY_BASE_MS = 15_000;
const RETRY_MAX_MS = 120_000;

/** What the room is told of a plan; `scheduledAt: null` cancels its auto-join. */
export interface PlanRequest {
	meetingId: number;
	userId: number;
	scheduledAt: string | null;
	autoJoin: boolean;
	joinable: boolean;
}

interface StoredPlan extends PlanRequest {
	attempts: number;
}

/** Auto-join of a scheduled meeting, on the room's alarm. */
export class AutoJoin {
	constructor(
		private readonly room: AutoJoinHost,
		/** The room's launch for a plan (RoomLaunch.startPlanned). */
		private readonly startPlanned: (start: RoomStart) => Promise<PublishResult>,
	) {}

	async plan(request: PlanRequest): Promise<void> {
		const start = request.scheduledAt ? Date.parse(request.scheduledAt) : Number.NaN;
		if (!request.autoJoin || !request.joinable || !Number.isFinite(start)) {
			await this.room.storage.delete(ROOM_KEYS.plan);
			await this.room.timers.clear("auto_join");
			return;
		}
		await this.room.storage.put(ROOM_KEYS.plan, { ...request, attempts: 0 } satisfies StoredPlan);
		await this.room.timers.set("auto_join", Math.max(Date.now(), start - JOIN_LEAD_MS));
	}

	async fire(): Promise<void> {
		const plan = await this.room.storage.get<StoredPlan>(ROOM_KEYS.plan);
		if (!plan) return;
		const env = this.room.env;
		const meeting = await findOwnedMeeting(env, plan.userId, plan.meetingId);
		if (!meeting || !mayAutoJoin(meeting) || !meeting.nativeMeetingId) {
			await this.room.storage.delete(ROOM_KEYS.plan);
			return;
		}
		const start = Date.parse(meeting.scheduledAt ?? "");
		if (isStale(meeting.scheduledAt, Date.now())) {
			await this.recordError(meeting.id, `Skipped: the plan is more than ${LATE_LIMIT_MS / 60_000} minutes past its start`);
			await this.room.storage.delete(ROOM_KEYS.plan);
			return;
		}
		try {
			const { handedOff: spawned } = await launchBot(
				env,
				{
					userId: meeting.userId,
					maxConcurrent: await accountCap(env, meeting.userId),
					platform: meeting.platform as Platform,
					nativeMeetingId: meeting.nativeMeetingId,
					meetingUrl: meeting.constructedMeetingUrl ?? "",
				},
				{ ...(meeting.botOptions as BotOptions), bot_name: meeting.botName },
				"scheduler",
				this.startPlanned,
			);
			if (!spawned.ok) throw new ApiError(502, `Bot could not be started: ${spawned.detail}`);
			// Kept until a host claims the meeting: a placement timeout hands it back to this plan.
			await this.room.storage.put(ROOM_KEYS.placedPlan, plan);
			await this.room.storage.delete(ROOM_KEYS.plan);
			await patchMeetingData(env, meeting.id, { auto_join_error: null }, { updatedAt: false });
		} catch (err) {
			const detail = err instanceof ApiError && typeof err.detail === "string" ? err.detail : "Bot could not be started";
			await this.recordError(meeting.id, detail);
			await this.retryLater(plan, start);
		}
	}

	/**
	 * The room handed the meeting back to its plan because no bot host claimed it in time: the
	 * error is recorded and auto-join tries again (with backoff) while the plan is not too late.
	 */
	async placementTimedOut(detail: string): Promise<void> {
		const plan = await this.room.storage.get<StoredPlan>(ROOM_KEYS.placedPlan);
		if (!plan) return;
		await this.room.storage.delete(ROOM_KEYS.placedPlan);
		await this.recordError(plan.meetingId, detail);
		await this.retryLater(plan, Date.parse(plan.scheduledAt ?? ""));
	}

	private async retryLater(plan: StoredPlan, start: number): Promise<void> {
		const attempts = plan.attempts + 1;
		const retryAt = Date.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempts - 1));
		if (retryAt <= start + LATE_LIMIT_MS) {
			await this.room.storage.put(ROOM_KEYS.plan, { ...plan, attempts } satisfies StoredPlan);
			await this.room.timers.set("auto_join", retryAt);
		} else {
			await this.room.storage.delete(ROOM_KEYS.plan);
		}
	}

	/** The room tells its own watchers: announcing through its stub would wait behind this very alarm. */
	private async recordError(meetingId: number, detail: string): Promise<void> {
		await noteAutoJoinError(this.room.env, meetingId, detail, (row, step) =>
			this.room.serial(() => this.room.tell(row, step, ["meeting.status_change"])),
		);
	}
}
