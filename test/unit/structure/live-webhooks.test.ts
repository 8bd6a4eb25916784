/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/**
 * The room's live webhook events (docs/webhooks.md#live-events) are made while the bot's messages
 * are applied, in the room's serial queue: they must never wait for a receiver. So the code that
 * makes them sends nothing itself, and the relay hands an ordered event (a live one) to the outbox
 * with `takeWebhookEvents`, which only stores it, never with `enqueueWebhook`, which attempts it
 * before it returns.
 */
const sources = import.meta.glob<string>(
	[
		"../../../durable-objects/meeting-room/live-webhooks.ts",
		"../../../durable-objects/meeting-room/webhook-relay.ts",
		"../../../src/webhooks/live-events.ts",
	],
	{ query: "?raw", import: "default", eager: true },
);
const text = (name: string) => Object.entries(sources).find(([key]) => key.endsWith(name))?.[1] ?? "";

describe("the live webhook events never wait for a receiver", () => {
	it("are made without any request or delivery attempt", () => {
		for (const name of ["live-webhooks.ts", "live-events.ts"]) {
			const source = text(name);
			expect(source.length, name).toBeGreaterThan(0);
			expect(source, name).not.toMatch(/\bfetch\(|attemptDelivery|enqueueWebhook|webhooks\/deliver"/);
		}
	});

	it("are handed to the outbox to be stored, an ordered event never attempted in the hand-over", () => {
		const relay = text("webhook-relay.ts");
		expect(relay).toMatch(/if \(event\.order_key\) await this\.account\(userId\)\.takeWebhookEvents\(userId, \[event\]\);/);
	});
});
