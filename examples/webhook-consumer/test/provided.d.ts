/** One delivery exactly as the gateway sent it (header names lower-case, as Node reads them). */
export interface RecordedDelivery {
	headers: Record<string, string>;
	body: string;
}

/** One meeting played to `completed`, and the deliveries its webhooks made. */
export interface PlayedMeeting {
	completedMeeting: { platform: string; native_meeting_id: string };
	deliveries: RecordedDelivery[];
}

/** Provided by test/global-setup.ts (Node), read with inject() by the tests (workerd). */
declare module "vitest" {
	export interface ProvidedContext {
		consumerGatewayUrl: string;
		consumerApiKey: string;
		consumerWebhookSecret: string;
		/** POST here plays a meeting to `completed` and answers with its PlayedMeeting. */
		meetingRunnerUrl: string;
	}
}
