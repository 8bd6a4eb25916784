/** `data.summary`, declared once (docs/api.md#summaries): a completed meeting's summary, decisions and action items. Imports only zod. */
import { z } from "zod";

export const SUMMARY_STATUSES = ["pending", "ready", "failed", "no_model"] as const;
export type SummaryStatus = (typeof SUMMARY_STATUSES)[number];

export const SUMMARY_LIMITS = {
	summaryChars: 4000,
	items: 25,
	itemChars: 500,
	ownerChars: 100,
	errorChars: 300,
} as const;

export const ActionItem = z.object({
	text: z.string().max(SUMMARY_LIMITS.itemChars),
	owner: z.string().max(SUMMARY_LIMITS.ownerChars).nullable(),
});

/** `data.summary`, as stored and shown. */
export const Summary = z.object({
	status: z.enum(SUMMARY_STATUSES),
	summary: z.string().max(SUMMARY_LIMITS.summaryChars).nullable(),
	decisions: z.array(z.string().max(SUMMARY_LIMITS.itemChars)).max(SUMMARY_LIMITS.items),
	action_items: z.array(ActionItem).max(SUMMARY_LIMITS.items),
	model: z.string().nullable(),
	generated_at: z.string().nullable(),
	error: z.string().max(SUMMARY_LIMITS.errorChars).nullable(),
});
export type Summary = z.infer<typeof Summary>;
