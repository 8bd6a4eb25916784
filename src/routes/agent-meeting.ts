import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { agentMeetingStreamRoutes } from "./agent-meeting-stream";

/** SKELETON (h-copilot: start, process, relay-health) (docs/agent.md#meeting-copilot). */
export const agentMeetingRoutes = new OpenAPIHono<AppEnv>();

// The meeting stream (docs/meeting-stream.md) lives in its own module.
agentMeetingRoutes.route("/", agentMeetingStreamRoutes);
