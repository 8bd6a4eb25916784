import type { Clock } from "./clock";
import type { Env } from "./env";
import type { Identity } from "./gateway/identity";

/** Hono's typing for this app: bindings plus what the gateway puts on the context. */
export interface AppEnv {
	Bindings: Env;
	Variables: {
		identity: Identity;
		clock: Clock;
	};
}
