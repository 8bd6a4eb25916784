// A stack as `npm start` runs its bot hosts (scripts/local-fleet.mjs launchBotHost, scripts/processes.mjs),
// stopped as `npm start` is: SIGTERM → stopAll. One bot host, launched with the JSON options in argv[2].
import { launchBotHost } from "../../scripts/local-fleet.mjs";
import { markBotHost, stopAll } from "../../scripts/processes.mjs";

process.on("SIGTERM", () => stopAll(0));
const { child } = await launchBotHost({ ...JSON.parse(process.argv[2] ?? "{}"), quiet: true });
markBotHost(child);
console.log(`bot host pid ${child.pid}`);
