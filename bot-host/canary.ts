/**
 * `npm run canary -- <meeting link>`: one bot, exactly as production runs it (the same session,
 * driver and browser), sent into a meeting the operator opened, with its channel going to a
 * room on this machine instead of the gateway. Each step the bot takes is printed as it happens,
 * passed or failed, with a screenshot at every change of status, so a deployment can be checked
 * against the platforms' pages as they are today. The steps are the bot's own (its step log,
 * its statuses, what it sends), never a parallel script.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { linksWithoutSecrets, SpawnRequest } from "../src/bot-channel/protocol.ts";
import { parseMeetingLink } from "../src/meetings/meeting-link.ts";
import { platformName } from "../src/platforms/index.ts";
import { chromiumSandbox } from "./bot/chromium-sandbox.ts";
import { hostEgressFromEnv } from "./bot/egress.ts";
import { BotSession } from "./bot/session.ts";
import { type CanaryOptions, CanaryUsage, parseCanaryArgs } from "./canary-args.ts";
import { LocalRoom } from "./local-room.ts";
import { sandboxChromiumFlags } from "./sandbox/cert.ts";
import { startSandbox } from "./sandbox/server.ts";

const MEETING_ID = 1;
const CHANNEL_TOKEN = "canary-channel";

export interface CanaryStep {
	/** Seconds since the canary started. */
	at_s: number;
	ok: boolean | null;
	step: string;
	screenshot?: string;
}

export interface CanaryReport {
	platform: string;
	/** The link without its query: a passcode never leaves. */
	link: string;
	bot_name: string;
	steps: CanaryStep[];
	admitted: boolean;
	outcome: string;
	exit_code: number;
}

/** Runs the canary; resolves to the process's exit code (0 in and out cleanly, 1 otherwise, 2 bad arguments). */
export async function runCanary(argv: string[], out: (line: string) => void = (line) => process.stdout.write(`${line}\n`)) {
	let options: CanaryOptions;
	try {
		options = parseCanaryArgs(argv);
	} catch (err) {
		if (!(err instanceof CanaryUsage)) throw err;
		out(`canary: ${err.message}`);
		return 2;
	}
	const link = parseMeetingLink(options.link);
	if (!link) {
		out(`canary: not a Google Meet, Zoom or Teams meeting link: ${linksWithoutSecrets(options.link).slice(0, 200)}`);
		return 2;
	}
	const startedAt = Date.now();
	const dir = options.out ?? path.join(".local", "canary", new Date(startedAt).toISOString().replace(/[:.]/g, "-"));
	mkdirSync(dir, { recursive: true });
	const shownLink = linksWithoutSecrets(link.constructed_meeting_url);
	out(`canary: ${platformName(link.platform)} ${shownLink} as "${options.botName}"; screenshots in ${dir}`);

	const sandbox = options.sandbox === "embedded" ? await startSandbox({ unconfiguredMeetings: "open" }) : null;
	const running = options.sandbox !== "embedded" ? options.sandbox : null;
	const extraFlags = sandbox ? sandbox.chromiumFlags : running ? sandboxChromiumFlags(running.port, running.spki) : [];
	const room = await LocalRoom.start(CHANNEL_TOKEN);
	const steps: CanaryStep[] = [];
	let shots = 0;
	const record = (ok: boolean | null, step: string, screenshot?: { name: string; image: Uint8Array | null | undefined }) => {
		const entry: CanaryStep = { at_s: Number(((Date.now() - startedAt) / 1000).toFixed(1)), ok, step };
		if (screenshot?.image) {
			entry.screenshot = `${String(++shots).padStart(2, "0")}-${screenshot.name}.jpg`;
			writeFileSync(path.join(dir, entry.screenshot), screenshot.image);
		}
		steps.push(entry);
		const mark = ok === null ? "·" : ok ? "✓" : "✗";
		out(`  ${mark} ${entry.at_s.toFixed(1).padStart(6)} s  ${step}${entry.screenshot ? `  [${entry.screenshot}]` : ""}`);
	};

	const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
	const request = SpawnRequest.parse({
		meeting_id: MEETING_ID,
		platform: link.platform,
		native_meeting_id: link.native_meeting_id,
		meeting_url: link.constructed_meeting_url,
		passcode: options.passcode ?? link.passcode ?? null,
		bot_name: options.botName,
		transcription: null,
		channel: { url: room.url(MEETING_ID), token: CHANNEL_TOKEN },
		screenshot_upload_url: room.screenshotUrl(MEETING_ID),
		automatic_leave: {
			max_wait_for_admission: options.lobbyTimeoutS * 1000,
			max_bot_time: (options.lobbyTimeoutS + options.stayS + 180) * 1000,
		},
	});
	const session = new BotSession({
		request,
		browser: {
			executablePath,
			extraFlags,
			fakeDevices: true,
			sandbox: chromiumSandbox(executablePath, process.env.BOT_CHROMIUM_SANDBOX, () => {}).sandbox,
		},
		egress: hostEgressFromEnv(process.env),
		// A failure and a help request are printed from the status that reports them, with their screenshot.
		onStep: (words) => {
			if (!/^(failed|asked for help): /.test(words)) record(true, words);
		},
	});

	let admitted = false;
	let outcome = "no ending reported";
	let sawCaption = false;
	let sawParticipant = false;
	let seen = 0;
	let leaveAt: number | null = null;
	const finished = new Promise<void>((resolve) => {
		room.until(MEETING_ID, (received) => {
			for (const message of received.slice(seen)) {
				seen += 1;
				if (message.type === "status") {
					const reason = message.reason ? `: ${message.reason}` : "";
					if (message.status === "awaiting_admission")
						void session.screenshot().then((image) => record(true, "in the lobby, waiting to be admitted", { name: "lobby", image }));
					if (message.status === "active") {
						admitted = true;
						leaveAt = Date.now() + options.stayS * 1000;
						void session
							.screenshot()
							.then((image) => record(true, `admitted: in the call; staying ${options.stayS} s`, { name: "admitted", image }));
					}
					if (message.status === "needs_help") {
						const help = message.help?.screenshot ? room.screenshots(MEETING_ID).get(message.help.screenshot) : undefined;
						record(false, `needs help (${message.help?.kind ?? "unknown"})${reason}`, { name: "needs-help", image: help?.bytes });
						room.command(MEETING_ID, { action: "leave" });
					}
					if (message.status === "completed" || message.status === "failed") {
						const failure = message.diagnostics?.screenshot ? room.screenshots(MEETING_ID).get(message.diagnostics.screenshot) : undefined;
						const page = message.diagnostics?.page_state ? ` (page: ${message.diagnostics.page_state})` : "";
						outcome = `${message.status}, ${message.completion_reason ?? message.failure_cause ?? "no reason code"}${reason}`;
						record(message.status === "completed", `${message.status === "completed" ? "left" : "failed"}${reason}${page}`, {
							name: message.status,
							image: failure?.bytes,
						});
						resolve();
						return true;
					}
				}
				if (message.type === "participant" && message.event === "join" && !sawParticipant) {
					sawParticipant = true;
					record(true, `saw a participant: ${message.participant.name.slice(0, 80)}`);
				}
				if (message.type === "segment" && message.segment.text && !sawCaption) {
					sawCaption = true;
					record(true, `read a caption: ${message.segment.speaker.slice(0, 40)}: "${message.segment.text.slice(0, 60)}"`);
				}
			}
			return undefined;
		});
	});
	const timer = setInterval(() => {
		if (leaveAt !== null && Date.now() >= leaveAt) {
			leaveAt = null;
			room.command(MEETING_ID, { action: "leave" });
		}
	}, 250);

	session.start();
	await finished;
	await session.finished;
	clearInterval(timer);
	await room.close();
	await sandbox?.close();

	if (admitted && !sawParticipant) record(null, "no participant seen besides the bot");
	if (admitted && !sawCaption) record(null, "no caption read (did anyone speak?)");
	const clean = admitted && outcome.startsWith("completed");
	const exitCode = clean ? 0 : 1;
	const report: CanaryReport = {
		platform: link.platform,
		link: shownLink,
		bot_name: options.botName,
		steps,
		admitted,
		outcome,
		exit_code: exitCode,
	};
	writeFileSync(path.join(dir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
	out(
		`result: ${clean ? "joined and left cleanly" : admitted ? "got in, but did not leave cleanly" : "did not get into the call"}: ${outcome}`,
	);
	out(`report: ${path.join(dir, "report.json")}`);
	return exitCode;
}
