// The one version number of meetbot-edge: the root package.json's. Everything that reports a
// version of this service (the start banner, the Worker's /health and OpenAPI info, the bot
// host's /health, the dashboard, the client package) takes it from there.
import { readFileSync } from "node:fs";
import path from "node:path";
import { root } from "./toolchain.mjs";

export function serviceVersion() {
	return JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version;
}
