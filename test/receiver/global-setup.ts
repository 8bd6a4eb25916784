/**
 * Vitest globalSetup (runs in Node) for the worker project: starts the webhook receiver and
 * hands its URL to the workerd tests through `provide`/`inject` (see vitest.config.ts, where it
 * becomes the WEBHOOK_RECEIVER_URL binding).
 */
import type { TestProject } from "vitest/node";
import { startWebhookReceiver } from "./webhook-receiver.ts";

declare module "vitest" {
	export interface ProvidedContext {
		webhookReceiverUrl: string;
	}
}

export default async function setup(project: TestProject) {
	const receiver = await startWebhookReceiver();
	project.provide("webhookReceiverUrl", receiver.url);
	return () => receiver.close();
}
