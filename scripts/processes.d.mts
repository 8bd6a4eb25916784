import type { ChildProcess, SpawnOptions } from "node:child_process";

export const BOT_HOST_STOP_MS: number;
export function markBotHost(child: ChildProcess): void;
export function stopAll(code?: number): Promise<void>;
export function redactedLines(from: NodeJS.ReadableStream, to: NodeJS.WritableStream, prefix?: string): void;
export function run(command: string, args: string[], options?: SpawnOptions): ChildProcess;
