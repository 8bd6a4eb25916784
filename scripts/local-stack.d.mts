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
export function startBotHost(options: {
	port: number;
	secret: string;
	sandboxPort: number;
	sandbox?: boolean;
	quiet?: boolean;
}): Promise<ChildProcess>;
