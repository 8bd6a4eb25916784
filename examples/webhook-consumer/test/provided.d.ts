/** One delivery exactly as the gateway sent it (header names lower-case, as Node reads them). */
export interface RecordedDelivery {
	headers: Record<string, string>;
	body: string;
}

/** Provided by test/global-setup.ts (Node), read with inject() by the tests (workerd). */
declare module "vitest" {
	export interface ProvidedContext {
		consumerGatewayUrl: string;
		consumerApiKey: string;
		consumerWebhookSecret: string;
		deliveries: RecordedDelivery[];
		completedMeeting: { platform: string; native_meeting_id: string };
	}
}
