import { app } from "./app";
import type { Env } from "./env";

export { AccountObject } from "../durable-objects/account";
export { IpGuard } from "../durable-objects/ip-guard";
export { LiveFeed } from "../durable-objects/live-feed";
export { MeetingRoom } from "../durable-objects/meeting-room";

export default {
	fetch: (request, env, ctx) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
