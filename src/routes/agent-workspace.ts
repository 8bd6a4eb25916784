import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";

/** SKELETON (h-git): tree, file, git, upload, init (docs/agent.md#workspace). */
export const agentWorkspaceRoutes = new OpenAPIHono<AppEnv>();
