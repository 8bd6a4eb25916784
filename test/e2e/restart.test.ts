/**
 * Nothing stuck after a stop (docs/bot-fleet.md#how-a-bot-is-placed, "Lost host"): `npm start` on
 * ports and a state directory of its own, one bot in a sandbox meeting's call and one in another's
 * lobby; then the whole stack dies at once (gateway, bot host, Chromiums, queue, sandbox: SIGKILL,
 * as a crash or a pulled plug; nobody reports anything) and is started again on the same state. The
 * bot host comes back with no memory of its bots. Each room's lease, on its own alarm, finds its
 * channel gone: both meetings leave their live status within 60 s of the second start, failed with
 * `data.failure_cause: bot_host_lost`, named as any lost host is.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { processTree } from "../../bot-host/process-tree";
import { CAPACITY_GATE_OFF } from "../../scripts/local-stack.mjs";
import { freePort } from "../../scripts/ports.mjs";
import { eventually } from "../shared/wait";
import { nativeId } from "./client";

const root = path.resolve(import.meta.dirname, "../..");
/** The bound: a meeting whose bot vanished leaves its live status within this of the next start. */
const AFTER_START_MS = 60_000;

interface Stack {
	child: ChildProcess;
	output: () => string;
}

interface MeetingRecord {
	status: string;
	completion_reason: string | null;
	failure_stage: string | null;
	data: { failure_cause?: string; failure_detail?: string };
}

/** `npm start` as a developer runs it; resolves once its banner is printed. */
async function startStack(env: Record<string, string>): Promise<Stack> {
	const child = spawn(process.execPath, ["scripts/start.mjs"], {
		cwd: root,
		stdio: ["ignore", "pipe", "pipe"],
		env: { ...process.env, ...env },
	});
	let output = "";
	child.stdout?.on("data", (chunk) => {
		output += String(chunk);
	});
	child.stderr?.on("data", (chunk) => {
		output += String(chunk);
	});
	await eventually(
		"the start banner",
		() => {
			if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output.slice(-3000)}`);
			return output.includes("Ctrl-C stops everything.") ? true : undefined;
		},
		170_000,
	);
	return { child, output: () => output };
}

/** Every process of the stack at once, as a crash would end them: no drain, no last report. */
function killStack(stack: Stack): Promise<void> {
	const pids = stack.child.pid ? processTree(stack.child.pid) : [];
	const exited = new Promise<void>((resolve) => stack.child.once("exit", () => resolve()));
	for (const pid of pids) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// already gone
		}
	}
	return exited;
}

describe("a stack stopped with live bots and started again", () => {
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-restart-"));
	const stacks: Stack[] = [];

	afterAll(async () => {
		for (const stack of stacks) if (stack.child.exitCode === null && stack.child.signalCode === null) await killStack(stack);
		rmSync(stateDir, { recursive: true, force: true });
	});

	it("ends the meeting in the call and the one in the lobby within 60 s of the next start, as a lost host", {
		timeout: 600_000,
	}, async () => {
		const ports = { gateway: await freePort(), host: await freePort(), sandbox: await freePort(), queue: await freePort() };
		const env = {
			API_GATEWAY_HOST_PORT: String(ports.gateway),
			BOT_HOST_PORT: String(ports.host),
			SANDBOX_PORT: String(ports.sandbox),
			SPAWN_QUEUE_PORT: String(ports.queue),
			BOT_HOSTS: "1",
			LOCAL_STATE_DIR: stateDir,
			// Other work shares this machine's cores: the bots this test starts are its own count.
			...CAPACITY_GATE_OFF,
		};
		const first = await startStack(env);
		stacks.push(first);
		const key = /^API key:\s+(\S+)/m.exec(first.output())?.[1] ?? "";
		expect(key).toMatch(/^vxa_/);
		const base = `http://127.0.0.1:${ports.gateway}`;
		const headers = { "X-API-Key": key, "content-type": "application/json" };
		const meeting = async (id: number) => (await (await fetch(`${base}/meetings/${id}`, { headers })).json()) as MeetingRecord;
		/** Polls gently: `npm start` keeps the gateway's rate limit of 20 requests a second. */
		const statusOf = async (id: number, wanted: (status: string) => boolean, what: string, ms: number) =>
			eventually(
				what,
				async () => {
					const record = await meeting(id);
					if (wanted(record.status)) return record;
					await new Promise((r) => setTimeout(r, 500));
					return undefined;
				},
				ms,
			);

		const sendBot = async (scenario: Record<string, unknown>) => {
			const code = nativeId("google_meet");
			const opened = await fetch(`http://127.0.0.1:${ports.sandbox}/__sandbox/meetings/${code}`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ participants: [{ name: "Alice", lines: ["Hello from before the stop."] }], ...scenario }),
			});
			expect(opened.status).toBe(200);
			const sent = await fetch(`${base}/bots`, {
				method: "POST",
				headers,
				body: JSON.stringify({ platform: "google_meet", native_meeting_id: code }),
			});
			expect(sent.status).toBe(201);
			return ((await sent.json()) as { id: number }).id;
		};
		const inCall = await sendBot({ direct_join: true });
		const inLobby = await sendBot({ lobby_forever: true });
		await statusOf(inCall, (s) => s === "active", "the first bot active", 120_000);
		await statusOf(inLobby, (s) => s === "awaiting_admission", "the second bot in the lobby", 120_000);

		await killStack(first);
		const second = await startStack(env);
		stacks.push(second);
		const startedAt = Date.now();
		const left = (status: string) => status !== "active" && status !== "awaiting_admission";
		const [call, lobby] = await Promise.all([
			statusOf(inCall, left, "the meeting in the call to leave active", AFTER_START_MS),
			statusOf(inLobby, left, "the meeting in the lobby to leave awaiting_admission", AFTER_START_MS - (Date.now() - startedAt)),
		]);

		// Named as a lost host is: a teardown by the stage it reached, the cause and the host in the detail.
		expect(call).toMatchObject({ status: "failed", completion_reason: null, failure_stage: "active" });
		expect(call.data.failure_cause).toBe("bot_host_lost");
		expect(call.data.failure_detail).toMatch(/^the bot's channel stayed closed for more than 30 s \(bot host local-1\)/);
		expect(lobby).toMatchObject({ status: "failed", completion_reason: "awaiting_admission_timeout", failure_stage: "awaiting_admission" });
		expect(lobby.data.failure_cause).toBe("bot_host_lost");
		expect(lobby.data.failure_detail).toMatch(/\(bot host local-1\)/);
		// Nor are they listed as running any more: the list shows them ended.
		const listed = (await (await fetch(`${base}/bots/status`, { headers })).json()) as {
			running_bots: { meeting_id: number; status: string }[];
		};
		const ours = listed.running_bots.filter((bot) => bot.meeting_id === inCall || bot.meeting_id === inLobby);
		expect(ours.map((bot) => bot.status)).toEqual(["failed", "failed"]);
	});
});
