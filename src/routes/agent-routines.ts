import { routeModule } from "./openapi-app";

/**
 * Routines (docs/agent.md#routines): saved prompts the user's agent runs on a schedule or on
 * their meeting events. Mounted under each of AGENT_PREFIXES. SKELETON: routes land with the
 * routines work.
 */
export const agentRoutineRoutes = routeModule();
