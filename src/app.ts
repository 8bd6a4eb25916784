import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "./app-env";
import { ApiError, mapError } from "./errors";
import { apiResponseHeaders, gateway } from "./gateway/gateway";
import { declareSecurity, SECURITY_SCHEMES } from "./gateway/openapi-security";
import { AGENT_PREFIXES, LEGACY_AGENT_PREFIX } from "./gateway/route-scopes";
import { accountRoutes } from "./routes/account";
import { adminRoutes } from "./routes/admin";
import { agentRoutes } from "./routes/agent";
import { agentActionRoutes } from "./routes/agent-actions";
import { agentChatRoutes } from "./routes/agent-chat";
import { agentMeetingRoutes } from "./routes/agent-meeting";
import { agentRoutineRoutes } from "./routes/agent-routines";
import { agentWorkspaceRoutes } from "./routes/agent-workspace";
import { agentWorkspaceGitRoutes } from "./routes/agent-workspace-git";
import { apiKeyRoutes } from "./routes/api-keys";
import { authTicketRoutes } from "./routes/auth-tickets";
import { botFleetRoutes } from "./routes/bot-fleet";
import { botHostAdminRoutes } from "./routes/bot-host-admin";
import { botHostQueueRoutes } from "./routes/bot-host-queue";
import { botTranscriptionRoutes } from "./routes/bot-transcription";
import { botRoutes } from "./routes/bots";
import { calendarCompatRoutes } from "./routes/calendar-compat";
import { calendarOauthRoutes } from "./routes/calendar-oauth";
import { calendarRoutes } from "./routes/calendars";
import { fleetMetricsRoutes } from "./routes/fleet-metrics";
import { healthRoutes } from "./routes/health";
import { interactiveRoutes } from "./routes/interactive";
import { joinHealthRoutes } from "./routes/join-health";
import { liveRoutes } from "./routes/live";
import { mcpRoutes } from "./routes/mcp";
import { meetingSummaryRoutes } from "./routes/meeting-summary";
import { meetingRoutes } from "./routes/meetings";
import { ApiErrorBody } from "./routes/openapi-app";
import { recordingPartRoutes } from "./routes/recording-parts";
import { recordingUploadRoutes } from "./routes/recording-upload";
import { recordingRoutes } from "./routes/recordings";
import { screenshotRoutes } from "./routes/screenshots";
import { searchRoutes } from "./routes/search";
import { transcriptionStreamRoutes } from "./routes/transcription-stream";
import { transcriptRoutes } from "./routes/transcripts";
import { usageRoutes } from "./routes/usage";
import { webhookDeliveryRoutes } from "./routes/webhook-deliveries";
import { WIRE_COMPONENTS } from "./routes/wire-components";
import { DEPLOYMENT_DEFAULTS, setting } from "./settings/deployment-defaults";
import { SERVICE_VERSION } from "./version";

/** The version of `api.v1`, the public wire contract this gateway speaks (docs/api.md). */
export const API_CONTRACT_VERSION = "1.5.0";

/** The routes that take inline media (`audio_base64`, `image_base64`), and their own body cap (`MAX_MEDIA_BODY_BYTES`). */
const MEDIA_BODY_ROUTE = /^\/bots\/[^/]+\/[^/]+\/(speak|avatar)$/;
export const DEFAULT_MAX_MEDIA_BODY_BYTES = DEPLOYMENT_DEFAULTS.MAX_MEDIA_BODY_BYTES;

/** The gateway: one middleware for identity and limits, then one module per section of docs/api.md. */
export function buildApp() {
	const app = new OpenAPIHono<AppEnv>();
	app.onError(mapError);
	app.notFound((c) => c.json({ detail: "Not Found" }, 404));

	app.use(apiResponseHeaders);
	app.use(gateway);
	app.use((c, next) => {
		// Recordings stream straight to R2 with their own limit (MAX_RECORDING_BYTES).
		if (c.req.path.startsWith("/internal/recordings/")) return next();
		// Screenshots have their own cap (SCREENSHOT_MAX_BYTES), whatever MAX_BODY_BYTES is.
		if (c.req.path.startsWith("/internal/screenshots/")) return next();
		// Workspace uploads (25 MiB a file) have their own cap on the route (src/routes/agent-workspace.ts).
		if (AGENT_PREFIXES.some((prefix) => c.req.path === `${prefix}/workspace/upload`)) return next();
		// Speech audio and avatar images come inline as base64: a minute of 48 kHz WAV is 7.7 MB of it.
		const media = MEDIA_BODY_ROUTE.test(c.req.path);
		return bodyLimit({
			maxSize: media ? setting(c.env, "MAX_MEDIA_BODY_BYTES") : setting(c.env, "MAX_BODY_BYTES"),
			onError: () => {
				throw new ApiError(413, "Request body too large");
			},
		})(c, next);
	});

	app.route("/", healthRoutes);
	app.route("/", adminRoutes);
	app.route("/", botHostAdminRoutes);
	app.route("/", accountRoutes);
	app.route("/", webhookDeliveryRoutes);
	app.route("/", authTicketRoutes);
	app.route("/", apiKeyRoutes);
	app.route("/", meetingRoutes);
	app.route("/", meetingSummaryRoutes);
	app.route("/", botRoutes);
	app.route("/", interactiveRoutes);
	// Before the transcript routes: `/transcripts/search` is not a platform and a meeting id.
	app.route("/", searchRoutes);
	app.route("/", transcriptRoutes);
	app.route("/", liveRoutes);
	app.route("/", recordingUploadRoutes);
	app.route("/", recordingPartRoutes);
	app.route("/", screenshotRoutes);
	app.route("/", botTranscriptionRoutes);
	app.route("/", transcriptionStreamRoutes);
	app.route("/", botFleetRoutes);
	app.route("/", botHostQueueRoutes);
	app.route("/", fleetMetricsRoutes);
	app.route("/", joinHealthRoutes);
	app.route("/", recordingRoutes);
	// Before the calendar routes: `/user/calendars/providers` is not a calendar id.
	app.route("/", calendarOauthRoutes);
	app.route("/", usageRoutes);
	app.route("/", calendarRoutes);
	app.route("/", calendarCompatRoutes);
	app.route("/", mcpRoutes);
	const agentModules = [
		agentRoutes,
		agentChatRoutes,
		agentRoutineRoutes,
		agentActionRoutes,
		agentWorkspaceRoutes,
		agentWorkspaceGitRoutes,
		agentMeetingRoutes,
	];
	// The legacy alias is mounted through a plain Hono app, which serves the routes without adding them to /openapi.json.
	const legacyAgent = new Hono<AppEnv>();
	for (const module of agentModules) legacyAgent.route("/", module);
	for (const prefix of AGENT_PREFIXES) {
		if (prefix === LEGACY_AGENT_PREFIX) app.route(prefix, legacyAgent);
		else for (const module of agentModules) app.route(prefix, module);
	}

	for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
	app.openAPIRegistry.register("Error", ApiErrorBody);
	for (const [name, schema] of Object.entries(WIRE_COMPONENTS)) app.openAPIRegistry.register(name, schema);
	const documentInfo = {
		openapi: "3.1.0",
		// The service's one version, as /health says; the contract it speaks is named beside it.
		info: {
			title: "Meeting bot gateway (api.v1)",
			version: SERVICE_VERSION,
			"x-api-contract": { name: "api.v1", version: API_CONTRACT_VERSION },
			description:
				`The public wire contract \`api.v1\`, version ${API_CONTRACT_VERSION} (docs/api.md), served` +
				" by a Vexa-compatible " +
				"meeting bot API on Cloudflare Workers. Errors are `{detail}`: a string, or a list of field errors for a 422.",
		},
	};
	app.get("/openapi.json", (c) => c.json(declareSecurity(app.getOpenAPI31Document(documentInfo))));
	return app;
}

export const app = buildApp();
