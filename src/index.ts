import { AccountObject } from "../durable-objects/account";
import { AgentUser } from "../durable-objects/agent-user";
import { IpGuard } from "../durable-objects/ip-guard";
import { LiveFeed } from "../durable-objects/live-feed";
import { MeetingRoom } from "../durable-objects/meeting-room";
import { MeetingStream } from "../durable-objects/meeting-stream";
import { TranscriptIndex } from "../durable-objects/transcript-index";
import { Workspace } from "../durable-objects/workspace";
import { app } from "./app";
import { calendarTick } from "./calendars/background-sync";
import type { Env } from "./env";
import { sweepRetention } from "./meetings/retention";
import { completeAbandonedRecordings } from "./recordings/parted-files";
import { catchUpPartitions } from "./search/partitions";

/** The classes wrangler.toml binds by name, exported to the runtime. */
export { AccountObject, AgentUser, IpGuard, LiveFeed, MeetingRoom, MeetingStream, TranscriptIndex, Workspace };

/**
 * Which class each namespace binding holds, told to `Env` here, where the classes are bound, so that
 * src/env.ts (imported by everything) imports none of them (docs/architecture.md#the-object-bindings).
 */
declare module "./env" {
	interface DurableObjectClasses {
		ACCOUNT: AccountObject;
		IP_GUARD: IpGuard;
		MEETING_ROOM: MeetingRoom;
		MEETING_STREAM: MeetingStream;
		LIVE_FEED: LiveFeed;
		AGENT_USER: AgentUser;
		WORKSPACE: Workspace;
		TRANSCRIPT_INDEX: TranscriptIndex;
	}
}

export default {
	fetch: (request, env, ctx) => app.fetch(request, env, ctx),
	// Cron (wrangler.toml [triggers]); wrangler dev does not fire it, so the local runner calls it.
	scheduled: async (controller, env, _ctx) => {
		await calendarTick(env, new Date(controller.scheduledTime));
		await sweepRetention(env, new Date(controller.scheduledTime));
		await catchUpPartitions(env);
		// Recordings whose bot's host died mid-meeting are completed from the parts it stored.
		await completeAbandonedRecordings(env, new Date(controller.scheduledTime));
	},
} satisfies ExportedHandler<Env>;
