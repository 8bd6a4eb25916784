import { app } from "./app";
import { calendarTick } from "./calendars/background-sync";
import type { Env } from "./env";
import { catchUpPartitions } from "./search/partitions";

export { AccountObject } from "../durable-objects/account";
export { AgentUser } from "../durable-objects/agent-user";
export { IpGuard } from "../durable-objects/ip-guard";
export { LiveFeed } from "../durable-objects/live-feed";
export { MeetingRoom } from "../durable-objects/meeting-room";
export { MeetingStream } from "../durable-objects/meeting-stream";
export { TranscriptIndex } from "../durable-objects/transcript-index";
export { Workspace } from "../durable-objects/workspace";

export default {
	fetch: (request, env, ctx) => app.fetch(request, env, ctx),
	// Cron (wrangler.toml [triggers]); wrangler dev does not fire it, so the local runner calls it.
	scheduled: async (controller, env, _ctx) => {
		await calendarTick(env, new Date(controller.scheduledTime));
		await catchUpPartitions(env);
	},
} satisfies ExportedHandler<Env>;
