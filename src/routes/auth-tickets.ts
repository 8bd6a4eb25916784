import { routeModule } from "./openapi-app";

/** Tickets for `/ws` from a browser (docs/dashboard.md#signing-in): POST and DELETE /auth/ticket. */
export const authTicketRoutes = routeModule();
