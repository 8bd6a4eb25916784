// The child processes of `npm start` and the test and bench stacks: started with run(), stopped together.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { processTree } from "../bot-host/process-tree.ts";
import { redactUrlSecrets } from "../src/url-secrets.ts";
import { root } from "./toolchain.mjs";

/** Every process the local stack started, so Ctrl-C stops them all. */
const children = new Set();
/** Bot hosts drain on a first SIGTERM (their bots stay to the meeting's end); a second makes the bots leave now. */
const botHostChildren = new Set();

/**
 * How long a stopping stack waits for its bot hosts to see their bots out of their meetings and
 * exit; a host still running then is killed with its browsers, so none outlives `npm start`.
 */
export const BOT_HOST_STOP_MS = 5_000;

/** Marks a child as a bot host, for stopAll's second SIGTERM and its bounded wait. */
export function markBotHost(child) {
	botHostChildren.add(child);
	child.on("exit", () => botHostChildren.delete(child));
}

/** SIGKILL to every bot host still running and everything it started (its Chromiums and their helpers). */
function killBotHosts() {
	for (const child of botHostChildren) {
		if (!child.pid) continue;
		for (const pid of processTree(child.pid)) {
			try {
				process.kill(pid, "SIGKILL");
			} catch {
				// ended while we looked
			}
		}
	}
}

let stopping = null;

/**
 * Stops everything: SIGTERM to all, a second SIGTERM to the bot hosts so their bots leave now,
 * then exits once the hosts have (at most BOT_HOST_STOP_MS, then they are killed with their
 * browsers). Called again (a second Ctrl-C), it kills the hosts at once.
 */
export function stopAll(code = 0) {
	if (stopping) {
		killBotHosts();
		return stopping;
	}
	const started = Date.now();
	for (const child of children) child.kill("SIGTERM");
	setTimeout(() => {
		for (const child of botHostChildren) if (child.exitCode === null) child.kill("SIGTERM");
	}, 100).unref();
	const hostsGone = Promise.all(
		[...botHostChildren].map(
			(child) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", resolve))),
		),
	);
	let bound;
	stopping = Promise.race([hostsGone, new Promise((resolve) => (bound = setTimeout(resolve, BOT_HOST_STOP_MS)))]).then(() => {
		clearTimeout(bound);
		killBotHosts();
		// The other children (gateway, queue, sandbox) get the moment they had before to go.
		setTimeout(() => process.exit(code), Math.max(0, 500 - (Date.now() - started)));
	});
	return stopping;
}

/**
 * Where the stack's children print (wrangler, the sandbox, the bot hosts): the terminal, unless
 * `npm start` sends it to its log file (scripts/start-log.mjs). Anything with a `write(text)`.
 */
let detail = { out: process.stdout, err: process.stderr };

/** Sends every child's output from now on to `sink` instead of the terminal. */
export function sendDetailTo(sink) {
	detail = { out: sink, err: sink };
}

/** The current destination of the children's standard output and error. */
export const detailOutput = () => detail;

export function run(command, args, options = {}) {
	const child = spawn(command, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], ...options });
	children.add(child);
	child.on("exit", () => children.delete(child));
	return child;
}

/**
 * Copies a child's output line by line, with `prefix` in front, and every credential in a URL
 * (`/ws?api_key=`, `?ticket=`, `?token=`) redacted: wrangler dev logs each request, and an error
 * it or a host prints may quote a URL; nothing the local stack prints may carry a key
 * (docs/live-feed.md#connecting).
 */
export function redactedLines(from, to, prefix = "") {
	createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) =>
		to.write(`${prefix}${redactUrlSecrets(line)}\n`),
	);
}
