/** The typed client (docs/client.md): the API, the live feed, and webhook verification. */
export {
	type AdminClientOptions,
	type ClientOptions,
	createAdminClient,
	createClient,
	createOperatorClient,
	type MeetbotAdminClient,
	type MeetbotClient,
	type MeetbotOperatorClient,
	type MeetingStreamEvent,
	type OperatorClientOptions,
	type StreamOptions,
	type WsTicket,
} from "./client.js";
export * from "./errors.js";
// The transport under every method, for a caller that keeps its key its own way (the dashboard).
export { buildUrl, type CallOptions, type FetchLike, type QueryValue, send, type Transport } from "./http.js";
export {
	createLiveFeed,
	LiveError,
	type LiveFeedOptions,
	type LiveHandlers,
	type LiveOptions,
	type LiveSocket,
	type LiveSubscription,
	type WebSocketFactory,
} from "./live.js";
export type * from "./live-frames.js";
// The one Server-Sent Events reader, for a caller that sends its own stream request.
export { readSse, type SseFrame } from "./sse.js";
export type * from "./types.js";
export * from "./webhooks.js";
