// `npm start`: the whole service on this machine with its embedded defaults: local D1, R2 and
// Durable Objects under .local/state (kept across restarts), the gateway on
// API_GATEWAY_HOST_PORT (default 18056). Ctrl-C stops everything it started.
import { prepare } from "./toolchain.mjs";

prepare();

const { startLocalStack } = await import("./local-stack.mjs");
await startLocalStack({ announce: true });
