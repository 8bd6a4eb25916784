import type { ChildProcess, SpawnOptions } from "node:child_process";

export function run(command: string, args: string[], options?: SpawnOptions): ChildProcess;
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
	secret: string;
	sandboxPort: number;
	sandbox?: boolean;
	quiet?: boolean;
	/** Extra environment for the bot host process (CHROMIUM_PATH, PATH, ...). */
	env?: Record<string, string>;
}
export interface BotHostHealth {
	ready: boolean;
	status?: string;
	detail?: string;
	problems?: string[];
}
export function launchBotHost(options: BotHostLaunch): Promise<{ child: ChildProcess; health: BotHostHealth }>;
export function startBotHost(options: BotHostLaunch): Promise<ChildProcess>;
