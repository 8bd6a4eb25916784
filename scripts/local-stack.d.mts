import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { LocalQueue } from "./local-queue.mjs";

export function run(command: string, args: string[], options?: SpawnOptions): ChildProcess;
/** The capacity gate's limits set so they never shut it (tests and benches that count Chromiums themselves). */
export const CAPACITY_GATE_OFF: Record<string, string>;
export function waitForHealth(url: string, timeoutMs?: number): Promise<void>;
export function startGateway(options: {
	port: number;
	stateDir: string;
	vars?: Record<string, string>;
	quiet?: boolean;
}): Promise<ChildProcess>;
export function startLocalStack(options: { announce: boolean }): Promise<{ base: string; secrets: Record<string, string> }>;
export interface BotHostLaunch {
	port: number;
	/** BOT_HOST_CREDENTIAL: the host's own credential, minted for `id` (mintHostCredential). */
	credential?: string;
	sandboxPort: number;
	/** true: the sandbox in the host's own process on sandboxPort; `<port>:<spki>`: a shared one (startSandbox); false: real platforms. */
	sandbox?: boolean | string;
	quiet?: boolean;
	/** Extra environment for the bot host process (CHROMIUM_PATH, PATH, ...). */
	env?: Record<string, string>;
	/** BOT_HOST_ID. */
	id?: string;
	/** BOT_HOST_GATEWAY_URL: where the host claims and reports. */
	gatewayUrl?: string;
	/** SPAWN_QUEUE_URL and SPAWN_QUEUE_TOKEN: the queue the host pulls spawn tickets from. */
	queueUrl?: string;
	queueToken?: string;
	/** Prefix for each line of the host's output (several hosts in one terminal). */
	label?: string;
	/** Each line the host prints on stdout (what it claimed and launched), also when quiet. */
	onLine?: (line: string) => void;
}
export interface BotHostHealth {
	ready: boolean;
	status?: string;
	detail?: string;
	problems?: string[];
}
export function launchBotHost(options: BotHostLaunch): Promise<{ child: ChildProcess; health: BotHostHealth }>;
export function startBotHost(options: BotHostLaunch): Promise<ChildProcess>;
/** Drains then stops a bot host (two SIGTERMs), SIGKILL after `timeoutMs`; resolves once it exited. */
export function stopBotHost(child: ChildProcess, timeoutMs?: number): Promise<void>;
export interface SharedSandbox {
	child: ChildProcess;
	port: number;
	/** BOT_HOST_SANDBOX for the hosts: `<port>:<spki hash>`. */
	setting: string;
	controlUrl: string;
}
export function startSandbox(options?: { port?: number; quiet?: boolean; env?: Record<string, string> }): Promise<SharedSandbox>;
/** POST /admin/bot-hosts at `base`: the new credential of `hostId` (replacing any earlier one). */
export function mintHostCredential(base: string, adminToken: string, hostId: string): Promise<string>;
export const SPAWN_QUEUE_ID: string;
export interface SpawnQueue {
	queue: LocalQueue;
	/** SPAWN_QUEUE_URL. */
	url: string;
	token: string;
	/** SPAWN_QUEUE_URL and SPAWN_QUEUE_TOKEN for the gateway. */
	gatewayVars: Record<string, string>;
}
export function startSpawnQueue(options?: { port?: number; token?: string }): Promise<SpawnQueue>;
export function botHostCount(value?: string): number;
/** `count` ports from `first` on, skipping `taken`. */
export function botHostPorts(first: number, count: number, taken: number[]): number[];
