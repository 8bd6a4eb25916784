import { createRoute, z } from "@hono/zod-openapi";
import { accountAudioToday } from "../bots/relay-meter";
import { mergeVocabulary, Vocabulary } from "../bots/vocabulary";
import type { Env } from "../env";
import { invalidField } from "../errors";
import { checkOutboundUrl, outboundPolicy } from "../outbound/url-guard";
import {
	applyPlain,
	applySecret,
	loadSettings,
	modelsView,
	RETENTION_DAYS_MAX,
	retentionView,
	type SettingsColumns,
	saveSettings,
	transcriptionView,
	WEBHOOK_EVENT_TYPES,
	webhookEventsView,
	webhookView,
} from "../settings/account-settings";
import { TranscriptionEngine } from "../shapes/transcription";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** Account and settings (docs/api.md#account-and-settings): identity, models, transcription, webhook, retention. */
export const accountRoutes = routeModule();

const MAX_SETTING = 2048;

/** A settable string: `""` or `null` clears it; longer than 2,048 characters is refused. */
const setting = () => z.string().max(MAX_SETTING).nullable().optional();

const httpUrl = (s: string) => {
	try {
		const u = new URL(s);
		return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0;
	} catch {
		return false;
	}
};

/**
 * An account's endpoint address must pass the outbound guard when it is saved (and is judged
 * again at use); a refusal is a 422 on that field naming why, and nothing is stored.
 */
function guardAddress(env: { OUTBOUND_ALLOW_PRIVATE?: string }, field: string, value: string | null | undefined): void {
	if (!value) return;
	const check = checkOutboundUrl(value, outboundPolicy(env));
	if (!check.ok) throw invalidField(["body", field], `${field} is not allowed: ${check.detail}`);
}

/** An http(s) URL with a hostname, or empty/null to clear. */
const urlSetting = () =>
	setting().refine((v) => v === undefined || v === null || v === "" || httpUrl(v), {
		message: "must be an http(s) URL with a hostname",
	});

accountRoutes.openapi(
	createRoute({
		method: "get",
		path: "/auth/me",
		responses: {
			200: jsonResponse(
				z.object({ user_id: z.number().int(), email: z.string(), scopes: z.array(z.string()), max_concurrent: z.number().int() }),
				"Who the key belongs to",
			),
		},
	}),
	(c) => {
		const me = c.get("identity");
		return c.json({ user_id: me.userId, email: me.email, scopes: me.scopes, max_concurrent: me.maxConcurrent }, 200);
	},
);

const ModelSettings = z
	.object({
		mode: z.string().nullable(),
		model: z.string().nullable(),
		meeting_model: z.string().nullable(),
		base_url: z.string().nullable(),
		api_key_set: z.boolean(),
		api_key: z.string().nullable(),
	})
	.openapi("ModelSettings");

accountRoutes.openapi(
	createRoute({ method: "get", path: "/user/models", responses: { 200: jsonResponse(ModelSettings, "Masked model settings") } }),
	async (c) => c.json(await modelsView(c.env, await loadSettings(c.env, c.get("identity").userId)), 200),
);

accountRoutes.openapi(
	createRoute({
		method: "put",
		path: "/user/models",
		request: {
			body: jsonBody(
				z.object({
					mode: setting().refine((v) => !v || v === "subscription" || v === "custom", {
						message: "mode must be 'subscription' or 'custom'",
					}),
					model: setting(),
					meeting_model: setting(),
					base_url: urlSetting(),
					api_key: setting(),
				}),
			),
		},
		responses: { 200: jsonResponse(ModelSettings, "Masked model settings after the update") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		guardAddress(c.env, "base_url", body.base_url);
		const { userId } = c.get("identity");
		const s = await loadSettings(c.env, userId);
		const next = {
			...s,
			modelMode: applyPlain(s.modelMode, body.mode),
			modelName: applyPlain(s.modelName, body.model),
			meetingModel: applyPlain(s.meetingModel, body.meeting_model),
			modelBaseUrl: applyPlain(s.modelBaseUrl, body.base_url),
			modelApiKeySealed: await applySecret(c.env, s.modelApiKeySealed, body.api_key),
		};
		await saveSettings(c.env, userId, next, c.get("clock"));
		return c.json(await modelsView(c.env, next), 200);
	},
);

const TranscriptionSettings = z
	.object({
		engine: TranscriptionEngine.nullable().openapi({
			description: "The account's engine (docs/api.md#transcription-engines); null follows the deployment's. `token` is its key",
		}),
		url: z.string().nullable(),
		token_set: z.boolean(),
		token: z.string().nullable(),
		vocabulary: z.array(z.string()).openapi({ description: "The account's custom vocabulary, merged into every bot's; [] for none" }),
		usage: z
			.object({ day: z.string(), relayed_seconds: z.number(), daily_limit_seconds: z.number().int() })
			.openapi({ description: "Seconds of audio the account's bots sent to transcribe this UTC day, and the daily limit" }),
	})
	.openapi("TranscriptionSettings");

/** The masked settings with the account's relayed audio today (docs/bot-channel.md#transcription). */
const transcriptionAnswer = async (env: Env, userId: number, settings: SettingsColumns, now: Date) => ({
	...(await transcriptionView(env, settings)),
	usage: await accountAudioToday(env, userId, now),
});

accountRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/transcription",
		responses: { 200: jsonResponse(TranscriptionSettings, "Masked transcription settings") },
	}),
	async (c) => {
		const { userId } = c.get("identity");
		return c.json(await transcriptionAnswer(c.env, userId, await loadSettings(c.env, userId), c.get("clock").now()), 200);
	},
);

accountRoutes.openapi(
	createRoute({
		method: "put",
		path: "/user/transcription",
		request: {
			body: jsonBody(
				z.object({
					engine: TranscriptionEngine.nullable().optional().openapi({
						description: "captions, builtin, openai, deepgram or assemblyai; null follows the deployment's. `token` is that engine's key",
					}),
					url: urlSetting(),
					token: setting(),
					// As the other fields: left out keeps it, null (or []) clears it.
					vocabulary: Vocabulary.nullable().optional(),
				}),
			),
		},
		responses: { 200: jsonResponse(TranscriptionSettings, "Masked transcription settings after the update") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		guardAddress(c.env, "url", body.url);
		const { userId } = c.get("identity");
		const s = await loadSettings(c.env, userId);
		const next = {
			...s,
			transcriptionEngine: applyPlain(s.transcriptionEngine, body.engine),
			transcriptionUrl: applyPlain(s.transcriptionUrl, body.url),
			transcriptionTokenSealed: await applySecret(c.env, s.transcriptionTokenSealed, body.token),
			transcriptionVocabulary: body.vocabulary === undefined ? s.transcriptionVocabulary : nonEmpty(mergeVocabulary(body.vocabulary)),
		};
		await saveSettings(c.env, userId, next, c.get("clock"));
		return c.json(await transcriptionAnswer(c.env, userId, next, c.get("clock").now()), 200);
	},
);

const nonEmpty = (list: string[]) => (list.length > 0 ? list : null);

/**
 * The filter: known event types to booleans. Other keys are dropped, not refused, as the
 * reference takes any map (docs/api.md#unknown-fields-in-request-bodies); a dropped key could
 * never match an event anyway.
 */
const WebhookEvents = z.object(
	Object.fromEntries(WEBHOOK_EVENT_TYPES.map((event) => [event, z.boolean().optional()])) as Record<
		(typeof WEBHOOK_EVENT_TYPES)[number],
		z.ZodOptional<z.ZodBoolean>
	>,
);

const WebhookSettings = z
	.object({
		webhook_url: z.string().nullable(),
		webhook_secret_set: z.boolean(),
		webhook_secret: z.string().nullable(),
		webhook_events: z.record(z.string(), z.boolean()),
	})
	.openapi("WebhookSettings");

accountRoutes.openapi(
	createRoute({ method: "get", path: "/user/webhook", responses: { 200: jsonResponse(WebhookSettings, "Masked webhook settings") } }),
	async (c) => c.json(await webhookView(c.env, await loadSettings(c.env, c.get("identity").userId)), 200),
);

accountRoutes.openapi(
	createRoute({
		method: "put",
		path: "/user/webhook",
		request: {
			body: jsonBody(
				z.object({
					webhook_url: z
						.string()
						.max(MAX_SETTING)
						.refine((v) => v === "" || httpUrl(v), { message: "must be an http(s) URL with a hostname" }),
					webhook_secret: z.string().max(MAX_SETTING).nullable().optional(),
					webhook_events: WebhookEvents.optional(),
				}),
			),
		},
		responses: {
			200: jsonResponse(
				z.object({
					user_id: z.number().int(),
					email: z.string(),
					webhook_url: z.string().nullable(),
					webhook_secret_set: z.boolean(),
					webhook_events: z.record(z.string(), z.boolean()),
				}),
				"The account's webhook record, without the secret",
			),
		},
	}),
	async (c) => {
		const body = c.req.valid("json");
		guardAddress(c.env, "webhook_url", body.webhook_url);
		const me = c.get("identity");
		const s = await loadSettings(c.env, me.userId);
		const next = {
			...s,
			webhookUrl: applyPlain(null, body.webhook_url),
			// An empty secret keeps the stored one (existing clients resend the form); null removes it.
			webhookSecretSealed:
				body.webhook_secret === "" ? s.webhookSecretSealed : await applySecret(c.env, s.webhookSecretSealed, body.webhook_secret),
			webhookEvents: body.webhook_events ? (body.webhook_events as Record<string, boolean>) : s.webhookEvents,
		};
		await saveSettings(c.env, me.userId, next, c.get("clock"));
		return c.json(
			{
				user_id: me.userId,
				email: me.email,
				webhook_url: next.webhookUrl,
				webhook_secret_set: next.webhookSecretSealed !== null,
				webhook_events: webhookEventsView(next.webhookEvents),
			},
			200,
		);
	},
);

const RetentionSettings = z
	.object({
		retention_days: z.number().int().nullable().openapi({ description: "The account's own window in days; null follows the deployment" }),
		deployment_days: z.number().int().openapi({ description: "The deployment's RETENTION_DAYS (0: kept until deleted)" }),
		effective_days: z.number().int().openapi({ description: "The window the sweep applies (0: kept until deleted)" }),
	})
	.openapi("RetentionSettings");

accountRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/retention",
		responses: { 200: jsonResponse(RetentionSettings, "How long the account's ended meetings keep their media (docs/retention.md)") },
	}),
	async (c) => c.json(retentionView(c.env, await loadSettings(c.env, c.get("identity").userId)), 200),
);

accountRoutes.openapi(
	createRoute({
		method: "put",
		path: "/user/retention",
		request: {
			body: jsonBody(
				z.object({
					retention_days: z
						.number()
						.int({ message: "retention_days must be a whole number of days" })
						.min(1, { message: `retention_days must be from 1 to ${RETENTION_DAYS_MAX} days, or null for the deployment's` })
						.max(RETENTION_DAYS_MAX, {
							message: `retention_days must be from 1 to ${RETENTION_DAYS_MAX} days, or null for the deployment's`,
						})
						.nullable(),
				}),
			),
		},
		responses: { 200: jsonResponse(RetentionSettings, "The window after the update; it applies to meetings already ended too") },
	}),
	async (c) => {
		const { userId } = c.get("identity");
		const next = { ...(await loadSettings(c.env, userId)), retentionDays: c.req.valid("json").retention_days };
		await saveSettings(c.env, userId, next, c.get("clock"));
		return c.json(retentionView(c.env, next), 200);
	},
);
