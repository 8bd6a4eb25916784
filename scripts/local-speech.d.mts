import type { ChildProcess } from "node:child_process";

export function modelsDir(stateDir: string): string;
export function findSpeechModel(stateDir: string, env?: Record<string, string | undefined>): string | null;
export function findVadModel(stateDir: string, env?: Record<string, string | undefined>): string | null;
export function engineVars(
	speechRunning: boolean,
	devVars: Record<string, string | undefined>,
	env?: Record<string, string | undefined>,
): Record<string, string>;
export interface RunningSpeech {
	child: ChildProcess;
	url: string;
	model: string;
}
export function localSpeech(options: {
	stateDir: string;
	port: number;
	waitForHealth: (url: string, timeoutMs?: number) => Promise<void>;
	env?: Record<string, string | undefined>;
}): Promise<{ running: RunningSpeech | null; missing: string | null }>;
export function startSpeechService(options: {
	port: number;
	modelPath: string;
	vadModelPath?: string | null;
	waitForHealth: (url: string, timeoutMs?: number) => Promise<void>;
}): Promise<RunningSpeech>;
