/**
 * Vitest globalSetup (runs in Node) for the worker project: starts the webhook receiver, the
 * OpenAI-compatible model server, the git server (`git http-backend`), the local Google
 * Calendar and Microsoft Graph and hands their URLs
 * to the workerd tests through `provide`/`inject` (see vitest.config.ts, where they become the
 * WEBHOOK_RECEIVER_URL, MODEL_SERVER_URL, GIT_SERVER_URL and GIT_SERVER_TOKEN bindings), and
 * real WebM files made with ffmpeg, which the recording tests `inject`.
 */
import type { TestProject } from "vitest/node";
import { startAssemblyAIServer } from "./assemblyai-server.ts";
import { startDeepgramServer } from "./deepgram-server.ts";
import { startGitServer } from "./git-server.ts";
import { startGoogleCalendarServer } from "./google-calendar-server.ts";
import { startGraphCalendarServer } from "./graph-calendar-server.ts";
import { startModelServer } from "./model-server.ts";
import { startWebhookReceiver } from "./webhook-receiver.ts";
import { makeWebmFixtures } from "./webm-fixture.ts";

declare module "vitest" {
	export interface ProvidedContext {
		webhookReceiverUrl: string;
		modelServerUrl: string;
		gitServerUrl: string;
		gitServerToken: string;
		/** The local Google Calendar and Microsoft Graph (calendars you sign into). */
		googleCalendarUrl: string;
		graphCalendarUrl: string;
		/** The local Deepgram and AssemblyAI streaming APIs (deepgram-server.ts, assemblyai-server.ts). */
		deepgramUrl: string;
		assemblyaiUrl: string;
		/** Real WebM files (base64) for the recording tests (test/receiver/webm-fixture.ts). */
		webmFixtures: { video: string; audio: string };
	}
}

/** The deployment's OAuth clients as vitest.config.ts binds them (GOOGLE_CLIENT_ID, …); one hour tokens unless a test shortens them. */
export const GOOGLE_TEST_CLIENT = {
	clientId: "google-test-client.apps.googleusercontent.com",
	clientSecret: "google-client-secret-must-stay-home",
	// The tests' gateway, and a local deployment without a public https address (loopback, as Google allows).
	redirectUris: ["https://gateway.test/calendars/oauth/callback", "http://127.0.0.1:8787/calendars/oauth/callback"],
	accessTokenLifetimeS: 3600,
};
export const MICROSOFT_TEST_CLIENT = {
	clientId: "00000000-0000-4000-8000-00000000cafe",
	clientSecret: "microsoft-client-secret-must-stay-home",
	redirectUris: ["https://gateway.test/calendars/oauth/callback"],
	accessTokenLifetimeS: 3600,
};

export default async function setup(project: TestProject) {
	const receiver = await startWebhookReceiver();
	const modelServer = await startModelServer();
	const gitServer = await startGitServer();
	const google = await startGoogleCalendarServer(GOOGLE_TEST_CLIENT);
	const graph = await startGraphCalendarServer(MICROSOFT_TEST_CLIENT);
	const deepgram = await startDeepgramServer();
	const assemblyai = await startAssemblyAIServer();
	project.provide("webhookReceiverUrl", receiver.url);
	project.provide("modelServerUrl", modelServer.url);
	project.provide("gitServerUrl", gitServer.url);
	project.provide("gitServerToken", gitServer.token);
	project.provide("webmFixtures", makeWebmFixtures());
	project.provide("googleCalendarUrl", google.url);
	project.provide("graphCalendarUrl", graph.url);
	project.provide("deepgramUrl", deepgram.wsUrl);
	project.provide("assemblyaiUrl", assemblyai.wsUrl);
	return async () => {
		await Promise.all([
			receiver.close(),
			modelServer.close(),
			gitServer.close(),
			google.close(),
			graph.close(),
			deepgram.close(),
			assemblyai.close(),
		]);
	};
}
