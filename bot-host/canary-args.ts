/** What `npm run canary -- <link> [options]` takes, and its usage line for anything else. */

export const CANARY_USAGE = `usage: npm run canary -- <meeting link> [--name <bot name>] [--passcode <passcode>]
       [--stay <seconds in the call, default 60>] [--lobby-timeout <seconds, default 300>]
       [--out <directory for screenshots and report.json>] [--sandbox | --sandbox=<port>:<spki>]`;

export class CanaryUsage extends Error {
	override readonly name = "CanaryUsage";
}

export interface CanaryOptions {
	link: string;
	botName: string;
	passcode: string | null;
	stayS: number;
	lobbyTimeoutS: number;
	out: string | null;
	/** null: the real platform; `embedded`: a sandbox started here; or one already running. */
	sandbox: null | "embedded" | { port: number; spki: string };
}

function seconds(flag: string, value: string | undefined, max: number): number {
	const n = Number(value);
	if (!value || !Number.isInteger(n) || n < 1 || n > max)
		throw new CanaryUsage(`${flag} takes whole seconds from 1 to ${max}\n${CANARY_USAGE}`);
	return n;
}

export function parseCanaryArgs(argv: readonly string[]): CanaryOptions {
	const options: CanaryOptions = {
		link: "",
		botName: "Canary bot",
		passcode: null,
		stayS: 60,
		lobbyTimeoutS: 300,
		out: null,
		sandbox: null,
	};
	const rest = [...argv];
	while (rest.length > 0) {
		const arg = rest.shift() ?? "";
		const [flag, inline] =
			arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
		const value = () => inline ?? rest.shift();
		switch (flag) {
			case "--name": {
				const name = value()?.trim();
				if (!name || name.length > 100) throw new CanaryUsage(`--name takes a bot name of 1 to 100 characters\n${CANARY_USAGE}`);
				options.botName = name;
				break;
			}
			case "--passcode":
				options.passcode = value() || null;
				break;
			case "--stay":
				options.stayS = seconds("--stay", value(), 4 * 3600);
				break;
			case "--lobby-timeout":
				options.lobbyTimeoutS = seconds("--lobby-timeout", value(), 3600);
				break;
			case "--out":
				options.out = value() || null;
				break;
			case "--sandbox": {
				if (inline === undefined) {
					options.sandbox = "embedded";
					break;
				}
				const [port, spki] = inline.split(":");
				if (!port || !spki || !Number.isInteger(Number(port))) throw new CanaryUsage(`--sandbox=<port>:<spki hash>\n${CANARY_USAGE}`);
				options.sandbox = { port: Number(port), spki };
				break;
			}
			case "--help":
			case "-h":
				throw new CanaryUsage(CANARY_USAGE);
			default:
				if (flag.startsWith("-") || options.link)
					throw new CanaryUsage(`unexpected ${flag.startsWith("-") ? flag : "argument"}\n${CANARY_USAGE}`);
				options.link = arg;
		}
	}
	if (!options.link) throw new CanaryUsage(`a meeting link is needed\n${CANARY_USAGE}`);
	return options;
}
