import { eq } from "drizzle-orm";
import type { Clock } from "../clock";
import { db } from "../db";
import { type AccountSettingsRow, accountSettings } from "../db/schema";
import type { Env } from "../env";
import { checkOutboundUrl, type OutboundRefusal, outboundPolicy } from "../outbound/url-guard";
import { isStreamingProvider, TranscriptionEngine } from "../shapes/transcription";
import { setting } from "./deployment-defaults";
import { maskSecret, seal, unseal } from "./secret-box";

/**
 * Drizzle store: per-account settings.
 * Per-account overrides of deployment defaults. Writes are partial: `undefined` leaves a
 * field alone, `""` or `null` clears it (falling back to the deployment), a value sets it.
 */
export type SettingsColumns = Omit<AccountSettingsRow, "userId" | "updatedAt">;
export type FieldUpdate = string | null | undefined;

export { WEBHOOK_EVENT_TYPES, type WebhookEventType, webhookEventEnabled } from "./webhook-events";

const EMPTY: SettingsColumns = {
	modelMode: null,
	modelName: null,
	meetingModel: null,
	modelBaseUrl: null,
	modelApiKeySealed: null,
	transcriptionUrl: null,
	transcriptionTokenSealed: null,
	transcriptionVocabulary: null,
	transcriptionEngine: null,
	webhookUrl: null,
	webhookSecretSealed: null,
	webhookEvents: null,
	retentionDays: null,
};

export async function loadSettings(env: Env, userId: number): Promise<SettingsColumns> {
	const row = await db(env).select().from(accountSettings).where(eq(accountSettings.userId, userId)).get();
	if (!row) return { ...EMPTY };
	const { userId: _u, updatedAt: _t, ...columns } = row;
	return columns;
}

/** Writes the merged columns; a row with nothing overridden is removed, not kept empty. */
export async function saveSettings(env: Env, userId: number, columns: SettingsColumns, clock: Clock): Promise<void> {
	const orm = db(env);
	if (Object.values(columns).every((v) => v === null)) {
		await orm.delete(accountSettings).where(eq(accountSettings.userId, userId));
		return;
	}
	const row = { ...columns, userId, updatedAt: clock.now().toISOString() };
	await orm.insert(accountSettings).values(row).onConflictDoUpdate({ target: accountSettings.userId, set: row });
}

/** Applies one partial update to a plain column. */
export function applyPlain(current: string | null, update: FieldUpdate): string | null {
	if (update === undefined) return current;
	return update === null || update === "" ? null : update;
}

/** Applies one partial update to a sealed column. */
export async function applySecret(env: Env, current: string | null, update: FieldUpdate): Promise<string | null> {
	if (update === undefined) return current;
	return update === null || update === "" ? null : seal(env.SECRETS_KEY, update);
}

async function maskedSecret(env: Env, sealed: string | null): Promise<string | null> {
	return sealed ? maskSecret(await unseal(env.SECRETS_KEY, sealed)) : null;
}

export async function modelsView(env: Env, s: SettingsColumns) {
	return {
		mode: s.modelMode,
		model: s.modelName,
		meeting_model: s.meetingModel,
		base_url: s.modelBaseUrl,
		api_key_set: s.modelApiKeySealed !== null,
		api_key: await maskedSecret(env, s.modelApiKeySealed),
	};
}

/** The account's engine as stored; a name this release no longer knows reads as none (the deployment's). */
export function accountEngine(s: Pick<SettingsColumns, "transcriptionEngine">): TranscriptionEngine | null {
	const parsed = TranscriptionEngine.safeParse(s.transcriptionEngine);
	return parsed.success ? parsed.data : null;
}

export async function transcriptionView(env: Env, s: SettingsColumns) {
	return {
		engine: accountEngine(s),
		url: s.transcriptionUrl,
		token_set: s.transcriptionTokenSealed !== null,
		token: await maskedSecret(env, s.transcriptionTokenSealed),
		vocabulary: s.transcriptionVocabulary ?? [],
	};
}

export async function webhookView(env: Env, s: SettingsColumns) {
	return {
		webhook_url: s.webhookUrl,
		webhook_secret_set: s.webhookSecretSealed !== null,
		webhook_secret: await maskedSecret(env, s.webhookSecretSealed),
		webhook_events: webhookEventsView(s.webhookEvents),
	};
}

/** The longest window an account may set, in days (ten years): a whole number of days, from 1. */
export const RETENTION_DAYS_MAX = 3650;

/**
 * The account's retention window (docs/retention.md): its own (`null` while it follows the
 * deployment), the deployment's, and the one the sweep applies; 0 keeps everything until deleted.
 */
export function retentionView(env: Env, s: SettingsColumns) {
	const deployment = Math.max(0, setting(env, "RETENTION_DAYS"));
	return { retention_days: s.retentionDays, deployment_days: deployment, effective_days: s.retentionDays ?? deployment };
}

/**
 * The filter as answered: always an object, as docs/api.md#account-and-settings types it. A filter never set reads
 * `{}`, which means the same: every event follows its default (only `meeting.completed`).
 */
export function webhookEventsView(stored: Record<string, boolean> | null): Record<string, boolean> {
	return stored ?? {};
}

/**
 * Who chose an endpoint's address. An account's address is judged by the outbound guard and
 * never receives a deployment credential; the deployment's own addresses are operator
 * configuration.
 */
export type EndpointOwner = "account" | "deployment";

/**
 * Whether a resolved endpoint may be called: an account's address goes through the outbound
 * guard at every use (it was judged when saved, but the policy may have changed since); the
 * deployment's own address is operator configuration.
 */
export function endpointAllowed(
	env: Env,
	url: string,
	owner: EndpointOwner | null,
): { ok: true } | { ok: false; reason: OutboundRefusal; detail: string } {
	return owner === "account" ? checkOutboundUrl(url, outboundPolicy(env)) : { ok: true };
}

/** The settings a bot or a delivery actually uses, in clear, for server-side use only. */
export interface ResolvedSettings {
	models: {
		mode: string | null;
		model: string | null;
		meeting_model: string | null;
		base_url: string | null;
		api_key: string | null;
		base_url_owner: EndpointOwner | null;
	};
	/**
	 * `url`/`token`/`owner`: the OpenAI-compatible endpoint. `engine`: the account's choice (null: the
	 * deployment's). `provider_key`: the account's key for its streaming provider, when `engine` is one:
	 * the account's one token is the key of the engine it chose (docs/api.md#transcription-engines).
	 */
	transcription: {
		url: string | null;
		token: string | null;
		owner: EndpointOwner | null;
		engine: TranscriptionEngine | null;
		provider_key: string | null;
		vocabulary: string[];
	};
	webhook: { url: string | null; secret: string | null; events: Record<string, boolean> | null; owner: EndpointOwner | null };
}

const orDefault = (value: string | null, fallback: string | undefined) => value ?? (fallback || null);

interface Endpoint {
	url: string | null;
	credential: string | null;
	owner: EndpointOwner | null;
}

/**
 * An address and its credential resolve as one unit, so a deployment credential only ever
 * goes to the deployment's own address. An account address takes the account's credential or
 * none (a webhook to it is then unsigned); the deployment address takes the account's
 * credential when it has one, else the deployment's.
 */
function endpoint(
	accountUrl: string | null,
	accountCredential: string | null,
	deploymentUrl?: string,
	deploymentCredential?: string,
): Endpoint {
	if (accountUrl) return { url: accountUrl, credential: accountCredential, owner: "account" };
	if (deploymentUrl) return { url: deploymentUrl, credential: accountCredential ?? (deploymentCredential || null), owner: "deployment" };
	return { url: null, credential: accountCredential, owner: null };
}

/** Plain fields fall through to the deployment one by one; an address and its credential as a pair. */
export async function resolveSettings(env: Env, s: SettingsColumns): Promise<ResolvedSettings> {
	const open = async (sealed: string | null) => (sealed ? unseal(env.SECRETS_KEY, sealed) : null);
	const models = endpoint(s.modelBaseUrl, await open(s.modelApiKeySealed), env.DEFAULT_MODEL_BASE_URL, env.DEFAULT_MODEL_API_KEY);
	const engine = accountEngine(s);
	const accountToken = await open(s.transcriptionTokenSealed);
	// A streaming provider's key is never sent to an OpenAI-compatible endpoint.
	const providerKey = engine !== null && isStreamingProvider(engine) ? accountToken : null;
	const transcription = endpoint(s.transcriptionUrl, providerKey ? null : accountToken, env.TRANSCRIPTION_URL, env.TRANSCRIPTION_TOKEN);
	const webhook = endpoint(s.webhookUrl, await open(s.webhookSecretSealed), env.DEFAULT_WEBHOOK_URL, env.DEFAULT_WEBHOOK_SECRET);
	return {
		models: {
			mode: orDefault(s.modelMode, env.DEFAULT_MODEL_MODE),
			model: orDefault(s.modelName, env.DEFAULT_MODEL),
			meeting_model: orDefault(s.meetingModel, env.DEFAULT_MEETING_MODEL),
			base_url: models.url,
			api_key: models.credential,
			base_url_owner: models.owner,
		},
		transcription: {
			url: transcription.url,
			token: transcription.credential,
			owner: transcription.owner,
			engine,
			provider_key: providerKey,
			vocabulary: s.transcriptionVocabulary ?? [],
		},
		webhook: { url: webhook.url, secret: webhook.credential, events: s.webhookEvents, owner: webhook.owner },
	};
}
