// `npm start`'s detail log: what wrangler, the sandbox and the bot hosts print goes to a file
// named in the banner instead of the terminal (some hundreds of lines per start), already redacted
// by scripts/processes.mjs. The last lines are kept in memory to show with an error that stops start-up.
import { createWriteStream, mkdirSync } from "node:fs";
import path from "node:path";

const TAIL_LINES = 20;

/** A log file under `<stateDir>/logs`, named by the start's time: `start-2026-11-29T09-30-00Z.log`. */
export function openStartLog(stateDir, now = new Date()) {
	const dir = path.join(stateDir, "logs");
	mkdirSync(dir, { recursive: true });
	const stamp = now
		.toISOString()
		.replace(/\.\d+Z$/, "Z")
		.replace(/:/g, "-");
	const file = path.join(dir, `start-${stamp}.log`);
	const stream = createWriteStream(file, { flags: "a", mode: 0o600 });
	const tail = [];
	let partial = "";
	return {
		file,
		write(chunk) {
			const text = String(chunk);
			stream.write(text);
			const parts = (partial + text).split("\n");
			partial = parts.pop() ?? "";
			tail.push(...parts);
			tail.splice(0, Math.max(0, tail.length - TAIL_LINES));
			return true;
		},
		/** The last lines written, for the terminal when start-up fails. */
		tail: () => [...tail, ...(partial ? [partial] : [])].slice(-TAIL_LINES),
	};
}
