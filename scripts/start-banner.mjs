// What `npm start` prints once the stack is up: a short banner. Everything the stack's processes
// print goes to the detail log the banner names (scripts/start-log.mjs).
import path from "node:path";
import { root } from "./toolchain.mjs";

/**
 * Sandbox meeting links, one per platform, as `POST /bots` or the dashboard take them. The sandbox
 * answers each under the real platform's address once its scenario is set (README.md).
 */
export const SANDBOX_LINKS = [
	["Google Meet", "abc-defg-hij", "https://meet.google.com/abc-defg-hij"],
	["Zoom", "85012345678", "https://zoom.us/j/85012345678?pwd=sandbox"],
	["Teams", "9123456789012", "https://teams.microsoft.com/meet/9123456789012?p=sandbox"],
];

const shown = (file) => (file.startsWith(root) ? path.relative(root, file) : file);

/**
 * The banner's lines. `first` is the first user (its key only on the first start, `fresh`);
 * `hosts` each with `id`, `port`, `child.pid` and `health`; `sandbox` null when bots join real meetings;
 * `speech` the speech service (`running`: its model and url) or why there is none (`missing`).
 */
export function startBanner({ version, base, stateDir, adminToken, first, sandbox, spawnQueue, hosts, speech, logFile }) {
	const lines = [
		"",
		`meetbot-edge ${version}`,
		`Gateway:      ${base}  (local data in ${shown(stateDir)})`,
		`Dashboard:    ${base}/  (sign in with the API key)`,
		`Admin token:  ${adminToken ?? "in .dev.vars (ADMIN_API_TOKEN)"}`,
	];
	if (first.fresh) {
		lines.push(`API key:      ${first.token}   (shown once; bot,tx scopes; user ${first.email})`);
		lines.push(`Try:          curl -H "X-API-Key: ${first.token}" ${base}/auth/me`);
	} else {
		lines.push(
			`API key:      printed on the first start; a new one: curl -X POST -H "X-Admin-API-Key: <admin token>" "${base}/admin/users/${first.user_id}/tokens?scopes=bot,tx"`,
		);
	}
	if (sandbox) {
		lines.push(
			`Sandbox:      open a meeting with POST ${sandbox.controlUrl}/meetings/<id> {"participants":[…]}, then send a bot to its link:`,
		);
		for (const [platform, , link] of SANDBOX_LINKS) lines.push(`  ${platform.padEnd(13)}${link}`);
		lines.push("              (README.md: Send a bot into a sandbox meeting; MEETBOT_SANDBOX=off joins real meetings)");
	} else {
		lines.push("Sandbox:      off: bots join real meetings");
	}
	lines.push(`Spawn queue:  ${spawnQueue.url}`);
	if (speech?.running) lines.push(`Speech:       ${speech.running.model} on ${speech.running.url} (docs/speech.md)`);
	else if (speech)
		lines.push(`Speech:       ${speech.missing}; for transcripts without captions: npm run models -- base.en (docs/speech.md)`);
	for (const host of hosts) {
		const { health } = host;
		const state = !health.ready ? `NOT READY: ${health.detail}` : health.status === "degraded" ? `degraded: ${health.detail}` : "ready";
		lines.push(`Bot host:     ${host.id} on http://127.0.0.1:${host.port} (pid ${host.child.pid}), ${state}`);
	}
	lines.push(`Detail log:   ${shown(logFile)}  (wrangler, the bot hosts, the sandbox)`, "Ctrl-C stops everything.", "");
	return lines;
}
