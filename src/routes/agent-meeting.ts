import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";

/** SKELETON (h-stream: stream; h-copilot: start, process, relay-health) (docs/agent.md#meeting-copilot). */
export const agentMeetingRoutes = new OpenAPIHono<AppEnv>();
