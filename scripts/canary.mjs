// `npm run canary -- <meeting link>`: one bot sent into a real meeting the operator opened, each
// step printed passed or failed with a screenshot (bot-host/canary.ts). Installs only what the
// bot host needs, as `npm start` does.
import { BOT_HOST_PACKAGES, ensureDebianPackages, ensureNode22, ensureNodeModules } from "./toolchain.mjs";

ensureNodeModules();
ensureNode22();
ensureDebianPackages(BOT_HOST_PACKAGES);

const { runCanary } = await import("../bot-host/canary.ts");
process.exit(await runCanary(process.argv.slice(2)));
