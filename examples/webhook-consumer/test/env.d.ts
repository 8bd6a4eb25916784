import type { Env as ConsumerEnv } from "../src/index";

declare global {
	namespace Cloudflare {
		interface Env extends ConsumerEnv {}
	}
}
