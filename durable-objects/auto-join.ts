import type { Platform } from "../src/bot-channel/protocol";
import { accountCap, type BotOptions, launchBot } from "../src/bots/launch";
import { ApiError } from "../src/errors";
import { findOwnedMeeting } from "../src/meetings/meeting-store";
import type { MeetingRoom } from "./meeting-room";

/** Join about this long before the planned start. */
export const JOIN_LEAD_MS = 60_000;
/** A plan this far past its start is stale: skipped, never joined late. */
export const STALE_AFTER_MS = 10 * 60_000;
const RETRY_BASE_MS = 15_000;
const RETRY_MAX_MS = 120_000;

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
	constructor(private readonly room: MeetingRoom) {}

	async plan(request: PlanRequest): Promise<void> {
		const start = request.scheduledAt ? Date.parse(request.scheduledAt) : Number.NaN;
		if (!request.autoJoin || !request.joinable || !Number.isFinite(start)) {
			await this.room.storage.delete("plan");
			await this.room.timers.clear("auto_join");
			return;
		}
		await this.room.storage.put("plan", { ...request, attempts: 0 } satisfies StoredPlan);
		await this.room.timers.set("auto_join", Math.max(Date.now(), start - JOIN_LEAD_MS));
	}

	async fire(): Promise<void> {
		const plan = await this.room.storage.get<StoredPlan>("plan");
		if (!plan) return;
		const env = this.room.environment;
		const meeting = await findOwnedMeeting(env, plan.userId, plan.meetingId);
		if (meeting?.status !== "scheduled" || !meeting.autoJoin || !meeting.nativeMeetingId || meeting.platform === "unknown") {
			await this.room.storage.delete("plan");
			return;
		}
		const start = Date.parse(meeting.scheduledAt ?? "");
		if (!Number.isFinite(start) || Date.now() > start + STALE_AFTER_MS) {
			await this.recordError(meeting.id, "Skipped: the plan is more than 10 minutes past its start");
			await this.room.storage.delete("plan");
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
				(start) => this.room.startPlanned(start),
			);
			if (!spawned.ok) throw new ApiError(502, `Bot could not be started: ${spawned.detail}`);
			await this.room.storage.delete("plan");
			await env.DB.prepare("UPDATE meetings SET data = json_remove(data, '$.auto_join_error') WHERE id = ?").bind(meeting.id).run();
		} catch (err) {
			const detail = err instanceof ApiError && typeof err.detail === "string" ? err.detail : "Bot could not be started";
			await this.recordError(meeting.id, detail);
			const attempts = plan.attempts + 1;
			const retryAt = Date.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (attempts - 1));
			if (retryAt <= start + STALE_AFTER_MS) {
				await this.room.storage.put("plan", { ...plan, attempts } satisfies StoredPlan);
				await this.room.timers.set("auto_join", retryAt);
			} else {
				await this.room.storage.delete("plan");
			}
		}
	}

	private async recordError(meetingId: number, detail: string): Promise<void> {
		await this.room.environment.DB.prepare(
			"UPDATE meetings SET data = json_set(data, '$.auto_join_error', ?), updated_at = ? WHERE id = ? AND status = 'scheduled'",
		)
			.bind(detail, new Date().toISOString(), meetingId)
			.run();
	}
}
