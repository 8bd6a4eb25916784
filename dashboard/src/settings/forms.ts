/**
 * The settings forms as data: what the API answers (masked), what a form holds, and the
 * partial PUT body a form becomes (docs/api.md#account-and-settings). Secrets are write-only:
 * an empty secret input means "keep the stored one", so a form never needs the secret itself.
 */
import type { Schemas } from "@meetbot/client";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType, webhookEventEnabled } from "../../../src/settings/webhook-events";

/** How the form names each event type of docs/webhooks.md#events. */
const EVENT_LABELS: Record<WebhookEventType, string> = {
	"meeting.completed": "Meeting completed",
	"meeting.started": "Meeting started",
	"bot.failed": "Bot failed",
	"meeting.status_change": "Every status change",
	"transcript.segments": "Transcript lines as they are spoken",
	"participant.joined": "Participant joined",
	"participant.left": "Participant left",
};

/** The event types with their defaults while no filter was ever set: those on by default first. */
export const WEBHOOK_EVENTS = [...WEBHOOK_EVENT_TYPES]
	.map((type) => ({ type, label: EVENT_LABELS[type], byDefault: webhookEventEnabled(null, type) }))
	.sort((a, b) => Number(b.byDefault) - Number(a.byDefault));

/** A write-only secret input: a new value, or the stored one kept, or removed. */
export interface SecretInput {
	value: string;
	remove: boolean;
}

export const NO_SECRET_CHANGE: SecretInput = { value: "", remove: false };

export interface WebhookForm {
	url: string;
	secret: SecretInput;
	events: Record<WebhookEventType, boolean>;
}

/** The filter as it acts: an event the stored filter does not mention follows its default. */
export function effectiveEvents(stored: Record<string, boolean> | null): Record<WebhookEventType, boolean> {
	const events = {} as Record<WebhookEventType, boolean>;
	for (const { type, byDefault } of WEBHOOK_EVENTS) events[type] = stored?.[type] ?? byDefault;
	return events;
}

export function webhookForm(settings: Schemas["WebhookSettings"]): WebhookForm {
	return { url: settings.webhook_url ?? "", secret: NO_SECRET_CHANGE, events: effectiveEvents(settings.webhook_events) };
}

/**
 * Every event is sent explicitly, so what the boxes show is what the filter becomes. For the
 * secret, `""` keeps the stored one on this route and `null` removes it.
 */
export function webhookBody(form: WebhookForm): {
	webhook_url: string;
	webhook_secret?: string | null;
	webhook_events: Record<string, boolean>;
} {
	const body: { webhook_url: string; webhook_secret?: string | null; webhook_events: Record<string, boolean> } = {
		webhook_url: form.url.trim(),
		webhook_events: { ...form.events },
	};
	if (form.secret.remove) body.webhook_secret = null;
	else if (form.secret.value !== "") body.webhook_secret = form.secret.value;
	return body;
}

export interface ModelForm {
	mode: string;
	model: string;
	meetingModel: string;
	baseUrl: string;
	apiKey: SecretInput;
}

export function modelForm(settings: Schemas["ModelSettings"]): ModelForm {
	return {
		mode: settings.mode ?? "",
		model: settings.model ?? "",
		meetingModel: settings.meeting_model ?? "",
		baseUrl: settings.base_url ?? "",
		apiKey: NO_SECRET_CHANGE,
	};
}

/**
 * On these routes `""` clears a field back to the deployment default, so an untouched empty
 * secret input is left out of the body rather than sent.
 */
function secretField(input: SecretInput): string | null | undefined {
	if (input.remove) return null;
	return input.value === "" ? undefined : input.value;
}

export function modelBody(form: ModelForm): Record<string, string | null> {
	const body: Record<string, string | null> = {
		mode: form.mode,
		model: form.model.trim(),
		meeting_model: form.meetingModel.trim(),
		base_url: form.baseUrl.trim(),
	};
	const key = secretField(form.apiKey);
	if (key !== undefined) body.api_key = key;
	return body;
}

export interface TranscriptionForm {
	/** The account's engine; "" follows the deployment's (docs/api.md#transcription-engines). */
	engine: string;
	url: string;
	token: SecretInput;
}

export function transcriptionForm(settings: Schemas["TranscriptionSettings"]): TranscriptionForm {
	return { engine: settings.engine ?? "", url: settings.url ?? "", token: NO_SECRET_CHANGE };
}

export function transcriptionBody(form: TranscriptionForm): Record<string, string | null> {
	const body: Record<string, string | null> = { engine: form.engine || null, url: form.url.trim() };
	const token = secretField(form.token);
	if (token !== undefined) body.token = token;
	return body;
}

/** How a stored secret is described next to its write-only input: only what the API showed. */
export function storedSecretText(isSet: boolean, masked: string | null): string {
	if (!isSet) return "None stored.";
	return `Stored: ${masked ?? "****"}. Leave empty to keep it.`;
}
