import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";

/** SKELETON (h-wire): attached, swap, and the read-only git export `repo.git` (docs/agent.md#workspace). */
export const agentWorkspaceGitRoutes = new OpenAPIHono<AppEnv>();
