import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env";
import { credentialHost } from "../bot-channel/host-credentials";
import { claimableSlots } from "../bot-channel/host-slots";
import { queueCall } from "../bots/spawn-queue";
import { fleetBody } from "./bot-fleet";

/**
 * The spawn queue as bot hosts reach it (docs/bot-fleet.md#how-a-bot-is-placed): through the
 * Worker, each with its own credential, never with the queue's token. The routes speak the
 * Queues pull-consumer API's shapes (`…/messages/pull`, `…/messages/ack`, the `{success,
 * errors, result}` envelope), so a host points its queue client at
 * `<gateway>/internal/bot-hosts/queue`. A pull hands a host no more tickets than the free slots
 * it last reported and has not claimed yet, and no pull hides a ticket for long.
 */
export const botHostQueueRoutes = new Hono<AppEnv>();

export const HOST_QUEUE_PATH = "/internal/bot-hosts/queue";
/** The longest a host may hide a pulled ticket from the others (hosts ask 60 s by default). */
export const MAX_PULL_VISIBILITY_MS = 300_000;
const DEFAULT_BATCH = 5;

const PullRequest = z.object({
	batch_size: z.number().int().min(1).max(100).optional(),
	visibility_timeout_ms: z.number().int().min(1_000).optional(),
});

const LeaseId = z.string().min(1).max(1_000);
const AckRequest = z.object({
	acks: z
		.array(z.object({ lease_id: LeaseId }))
		.max(100)
		.default([]),
	retries: z
		.array(z.object({ lease_id: LeaseId, delay_seconds: z.number().int().min(0).max(43_200).optional() }))
		.max(100)
		.default([]),
});

const succeeded = (result: unknown) => ({ success: true, errors: [], messages: [], result });
const failed = (detail: string) => ({ success: false, errors: [{ message: detail }], messages: [], detail });

botHostQueueRoutes.post(`${HOST_QUEUE_PATH}/messages/pull`, async (c) => {
	const hostId = await credentialHost(c.env, c.req.header("authorization"));
	const asked = await fleetBody(c, PullRequest);
	const batch = Math.min(asked.batch_size ?? DEFAULT_BATCH, await claimableSlots(c.env, hostId, Date.now()));
	// No slot left of those it reported: nothing to hand out, and the queue is not asked.
	if (batch <= 0) return c.json(succeeded({ messages: [] }), 200);
	const visibility = Math.min(asked.visibility_timeout_ms ?? 60_000, MAX_PULL_VISIBILITY_MS);
	const answer = await queueCall(c.env, "/messages/pull", { batch_size: batch, visibility_timeout_ms: visibility });
	if (!answer.ok) return c.json(failed(answer.detail), answer.status === 503 ? 503 : 502);
	return c.json(succeeded(answer.result), 200);
});

botHostQueueRoutes.post(`${HOST_QUEUE_PATH}/messages/ack`, async (c) => {
	await credentialHost(c.env, c.req.header("authorization"));
	const settle = await fleetBody(c, AckRequest);
	const answer = await queueCall(c.env, "/messages/ack", settle);
	if (!answer.ok) return c.json(failed(answer.detail), answer.status === 503 ? 503 : 502);
	return c.json(succeeded(answer.result), 200);
});
