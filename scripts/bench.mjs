// `npm run bench`: figures on this machine, through the real `wrangler dev`, printed as a table.
// Speed is measured here, never asserted in tests.
import { prepare } from "./toolchain.mjs";

prepare();

const { runBenchmarks } = await import("./bench/run.mjs");
await runBenchmarks(process.argv.slice(2));
