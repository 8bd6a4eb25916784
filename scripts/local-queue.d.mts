export interface QueueMessageView {
	id: string;
	body: unknown;
	timestamp_ms: number;
	attempts: number;
	lease_id: string;
	metadata: Record<string, string>;
}
export interface LocalQueues {
	publish(queueId: string, message: { body: unknown; content_type?: "json" | "text"; delay_seconds?: number }): void;
	pull(queueId: string, options?: { batch_size?: number; visibility_timeout_ms?: number; visibility_timeout?: number }): QueueMessageView[];
	ack(
		queueId: string,
		body?: { acks?: { lease_id: string }[]; retries?: { lease_id: string; delay_seconds?: number }[] },
	): { ackCount: number; retryCount: number; warnings: unknown[] };
	/** Messages not yet acked (delivered or not). */
	backlog(queueId: string): number;
}
export function createLocalQueues(options?: { now?: () => number; maxRetries?: number }): LocalQueues;
export function queueHandler(
	queues: LocalQueues,
	options?: { token?: string },
): (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => Promise<boolean>;
export interface LocalQueue {
	port: number;
	queues: LocalQueues;
	/** The queue's REST base, as SPAWN_QUEUE_URL takes it. */
	url(queueId: string): string;
	close(): Promise<void>;
}
export function startLocalQueue(options?: {
	port?: number;
	token?: string;
	account?: string;
	now?: () => number;
	maxRetries?: number;
}): Promise<LocalQueue>;
