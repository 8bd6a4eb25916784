// The local deployment's secrets: generated once, kept in .dev.vars (git-ignored), which
// `wrangler dev` reads. ADMIN_API_TOKEN from the environment wins over the stored one.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { root } from "./toolchain.mjs";

const file = path.join(root, ".dev.vars");

function parse(text) {
	const vars = {};
	for (const line of text.split("\n")) {
		const m = line.match(/^([A-Z0-9_]+)=(.*)$/);
		if (m) vars[m[1]] = m[2].replace(/^"(.*)"$/, "$1");
	}
	return vars;
}

export function localSecrets() {
	const vars = existsSync(file) ? parse(readFileSync(file, "utf8")) : {};
	const secrets = {
		ADMIN_API_TOKEN: process.env.ADMIN_API_TOKEN || vars.ADMIN_API_TOKEN || `adm_${randomBytes(24).toString("base64url")}`,
		SECRETS_KEY: vars.SECRETS_KEY || randomBytes(32).toString("base64"),
		// What an autoscaler presents at GET /internal/fleet/metrics (docs/bot-fleet.md#the-metric).
		FLEET_METRICS_TOKEN: vars.FLEET_METRICS_TOKEN || randomBytes(24).toString("base64url"),
	};
	// Retired: each bot host now has a credential of its own, minted at every start (local-stack.mjs).
	const { BOT_HOST_SECRET: _retired, ...kept } = vars;
	const merged = { ...kept, ...secrets };
	writeFileSync(
		file,
		`${Object.entries(merged)
			.map(([k, v]) => `${k}="${v}"`)
			.join("\n")}\n`,
		{ mode: 0o600 },
	);
	return merged;
}
