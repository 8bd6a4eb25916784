// The child processes of `npm start` and the test and bench stacks: started with run(), stopped together.
import { spawn } from "node:child_process";
import { root } from "./toolchain.mjs";

/** Every process the local stack started, so Ctrl-C stops them all. */
const children = new Set();
/** Bot hosts drain on a first SIGTERM (their bots stay to the meeting's end); a second makes the bots leave now. */
const botHostChildren = new Set();

/** Marks a child as a bot host, for stopAll's second SIGTERM. */
export function markBotHost(child) {
	botHostChildren.add(child);
	child.on("exit", () => botHostChildren.delete(child));
}

export function stopAll(code = 0) {
	for (const child of children) child.kill("SIGTERM");
	setTimeout(() => {
		for (const child of botHostChildren) if (child.exitCode === null) child.kill("SIGTERM");
	}, 100).unref();
	setTimeout(() => process.exit(code), 500).unref();
}

export function run(command, args, options = {}) {
	const child = spawn(command, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], ...options });
	children.add(child);
	child.on("exit", () => children.delete(child));
	return child;
}
