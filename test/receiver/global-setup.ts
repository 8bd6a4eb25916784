/**
 * Vitest globalSetup (runs in Node) for the worker project: starts the webhook receiver, the
 * OpenAI-compatible model server and the git server (`git http-backend`) and hands their URLs
 * to the workerd tests through `provide`/`inject` (see vitest.config.ts, where they become the
 * WEBHOOK_RECEIVER_URL, MODEL_SERVER_URL, GIT_SERVER_URL and GIT_SERVER_TOKEN bindings), and
 * real WebM files made with ffmpeg, which the recording tests `inject`.
 */
import type { TestProject } from "vitest/node";
import { startGitServer } from "./git-server.ts";
import { startModelServer } from "./model-server.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";
import { makeWebmFixtures } from "./webm-fixture.ts";

declare module "vitest" {
	export interface ProvidedContext {
		webhookReceiverUrl: string;
		modelServerUrl: string;
		gitServerUrl: string;
		gitServerToken: string;
		/** Real WebM files (base64) for the recording tests (test/receiver/webm-fixture.ts). */
		webmFixtures: { video: string; audio: string };
	}
}

export default async function setup(project: TestProject) {
	const receiver = await startWebhookReceiver();
	const modelServer = await startModelServer();
	const gitServer = await startGitServer();
	project.provide("webhookReceiverUrl", receiver.url);
	project.provide("modelServerUrl", modelServer.url);
	project.provide("gitServerUrl", gitServer.url);
	project.provide("gitServerToken", gitServer.token);
	project.provide("webmFixtures", makeWebmFixtures());
	return async () => {
		await Promise.all([receiver.close(), modelServer.close(), gitServer.close()]);
	};
}
