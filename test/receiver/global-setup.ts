/**
 * Vitest globalSetup (runs in Node) for the worker project: starts the webhook receiver and the
 * OpenAI-compatible model server and hands their URLs to the workerd tests through
 * `provide`/`inject` (see vitest.config.ts, where they become the WEBHOOK_RECEIVER_URL and
 * MODEL_SERVER_URL bindings).
 */
import type { TestProject } from "vitest/node";
import { startModelServer } from "./model-server.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";

declare module "vitest" {
	export interface ProvidedContext {
		webhookReceiverUrl: string;
		modelServerUrl: string;
	}
}

export default async function setup(project: TestProject) {
	const receiver = await startWebhookReceiver();
	const modelServer = await startModelServer();
	project.provide("webhookReceiverUrl", receiver.url);
	project.provide("modelServerUrl", modelServer.url);
	return async () => {
		await Promise.all([receiver.close(), modelServer.close()]);
	};
}
