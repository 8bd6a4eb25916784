import { routeModule } from "./openapi-app";

/**
 * The agent plane (docs/agent.md): health, models, invocations, events, workloads, chat and
 * sessions. Mounted under each of AGENT_PREFIXES. SKELETON: routes land with the runtime work.
 */
export const agentRoutes = routeModule();
