/** Where a helper program the bot host runs (setpriv, Xvfb, xdotool, espeak-ng) is on PATH. */
import { accessSync, constants } from "node:fs";
import path from "node:path";

/** The first executable `command` in `searchPath`'s directories, or null. */
export function findOnPath(command: string, searchPath = process.env.PATH ?? ""): string | null {
	for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
		const file = path.join(dir, command);
		try {
			accessSync(file, constants.X_OK);
			return file;
		} catch {
			// not here
		}
	}
	return null;
}
