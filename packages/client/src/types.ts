/**
 * Request and response types of each route, read off the generated `paths` (schema.ts, from the
 * Worker's own /openapi.json), so a method's types change when the API's schemas do.
 */
import type { components, paths } from "./schema.js";

export type { components, paths };
export type Schemas = components["schemas"];

export type HttpMethod = "get" | "put" | "post" | "delete" | "patch";
export type ApiPath = keyof paths;

/** The operation `method path`, or never when the document has none. */
export type Operation<P extends ApiPath, M extends HttpMethod> = Exclude<paths[P][M], undefined>;

type JsonContent<T> = T extends { content: { "application/json": infer J } } ? J : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The JSON of a route's 2xx answers; void for a route that answers 204 without a body. */
export type ResponseOf<P extends ApiPath, M extends HttpMethod> =
	Operation<P, M> extends { responses: infer R }
		? [JsonContent<R[Extract<keyof R, SuccessStatus>]>] extends [never]
			? undefined
			: JsonContent<R[Extract<keyof R, SuccessStatus>]>
		: never;

/** The JSON body a route takes. */
export type BodyOf<P extends ApiPath, M extends HttpMethod> = JsonContent<
	NonNullable<Operation<P, M> extends { requestBody?: infer B } ? B : never>
>;

/** The query parameters a route takes. */
export type QueryOf<P extends ApiPath, M extends HttpMethod> =
	Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The path parameters a route takes. */
export type PathParamsOf<P extends ApiPath, M extends HttpMethod> =
	Operation<P, M> extends { parameters: { path?: infer Q } } ? NonNullable<Q> : never;

// Domain names for the records callers handle most.
export type Meeting = Schemas["Meeting"];
export type MeetingList = Schemas["MeetingList"];
export type MeetingSummary = Schemas["MeetingSummary"];
export type Transcript = Schemas["TranscriptionResponse"];
export type TranscriptSegment = Schemas["TranscriptionSegment"];
export type BotStatus = Schemas["BotStatus"];
export type Recording = Schemas["Recording"];
export type WebhookSettings = Schemas["WebhookSettings"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type CalendarConnection = Schemas["CalendarConnection"];
export type AgentFrame = Schemas["AgentFrame"];
/** The platform of a meeting link (POST /bots may leave it out when it sends a meeting_url). */
export type Platform = NonNullable<BodyOf<"/bots", "post">["platform"]>;
export type SendBotRequest = BodyOf<"/bots", "post">;
/** What a recording holds (docs/api.md#recording-config): video or audio only, the video's size, the audio's format. */
export type RecordingConfig = NonNullable<SendBotRequest["recording_config"]>;
