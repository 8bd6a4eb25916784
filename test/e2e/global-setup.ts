/**
 * Tier 3 (DESIGN.md): the real Worker under `wrangler dev` with local D1/R2/Durable Objects,
 * started once for the end-to-end project. Tests reach it only through HTTP and WebSockets.
 * The recording receiver stands in for the outside world: it receives webhooks and the
 * bot host's spawn calls, so a test can play the bot over the real channel.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startGateway } from "../../scripts/local-stack.mjs";
import { startWebhookReceiver } from "../receiver/webhook-receiver.ts";

declare module "vitest" {
	export interface ProvidedContext {
		gatewayUrl: string;
		adminToken: string;
		receiverUrl: string;
	}
}

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (address && typeof address === "object" ? resolve(address.port) : reject(new Error("no port"))));
		});
	});
}

export default async function setup(project: TestProject) {
	const receiver = await startWebhookReceiver();
	const port = await freePort();
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-e2e-"));
	const adminToken = `adm_${randomBytes(18).toString("base64url")}`;
	const gateway = await startGateway({
		port,
		stateDir,
		quiet: true,
		vars: {
			ADMIN_API_TOKEN: adminToken,
			SECRETS_KEY: randomBytes(32).toString("base64"),
			BOT_HOST_SECRET: randomBytes(18).toString("base64url"),
			BOT_HOST_URL: `${receiver.url}/bot-host/`,
			OUTBOUND_ALLOW_PRIVATE: "true",
			GATEWAY_RATE_LIMIT_RPS: "1000",
			GATEWAY_RATE_LIMIT_BURST: "1000",
		},
	});
	project.provide("gatewayUrl", `http://127.0.0.1:${port}`);
	project.provide("adminToken", adminToken);
	project.provide("receiverUrl", receiver.url);
	return async () => {
		gateway.kill("SIGTERM");
		await receiver.close();
		rmSync(stateDir, { recursive: true, force: true });
	};
}
