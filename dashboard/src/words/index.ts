/**
 * People's words for every code the API sends the dashboard, in one place: meeting statuses and
 * endings, help and placement (meeting.ts), fields in validation errors (fields.ts), copilot card
 * kinds (cards.ts), a test webhook's result (webhooks.ts). Pages show these, never the codes.
 */
export * from "./cards";
export * from "./fields";
export * from "./meeting";
export * from "./webhooks";
