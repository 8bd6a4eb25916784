import { z } from "@hono/zod-openapi";
import eventSchema from "../agent/contracts/event.schema.json";
import unitSchema from "../agent/contracts/unit.schema.json";
import { AgentFrame } from "../agent/frames";

/**
 * The bodies of the agent routes as /openapi.json documents them (docs/agent.md). The request
 * envelopes are the contract schemas themselves, so the document cannot drift from what
 * checkInvocation and checkEvent enforce.
 */

export const AgentHealth = z
	.object({
		status: z.literal("ok"),
		service: z.literal("agent"),
		checks: z.object({ dispatcher: z.boolean() }),
		capabilities: z.object({
			model_inference: z.object({
				state: z
					.enum(["configured", "not_configured", "misconfigured"])
					.openapi({ description: "misconfigured: the account's model address is refused by the outbound guard" }),
			}),
		}),
	})
	.openapi("AgentHealth");

const modelName = z.string().openapi({ description: "The model's name; `default` when none is configured" });
export const AgentModels = z
	.object({ chat_model: modelName, agent_model: modelName, streaming_model: modelName, meeting_model: modelName })
	.openapi("AgentModels");

export const WorkloadAccepted = z
	.object({
		workload_id: z.string(),
		/** Names in the invocation's `tools` list that no tool of the agent has: they grant nothing. */
		unknown_tools: z.array(z.string()).optional(),
	})
	.openapi("WorkloadAccepted");
export const EventAccepted = z.object({ workload_id: z.string(), trigger: z.enum(["event", "transcription"]) }).openapi("EventAccepted");

const MeetingRef = z.object({ meeting_id: z.string(), session_uid: z.string(), platform: z.string().optional() });
const WorkloadContext = z
	.object({
		kind: z.enum(["none", "meeting", "email", "generic"]),
		meeting: MeetingRef.optional(),
		ref: z.object({ uri: z.string(), etag: z.string().optional() }).optional(),
	})
	.openapi("WorkloadContext");

export const Workload = z
	.object({
		workload_id: z.string(),
		status: z.enum(["queued", "running", "completed", "failed"]),
		trigger: z.enum(["message", "scheduled", "event", "transcription"]),
		mode: z
			.enum(["ro", "rw"])
			.openapi({ description: "The mode it runs in, derived: rw only for message and scheduled triggers that asked rw somewhere" }),
		launcher: z.string(),
		context: WorkloadContext.nullable(),
		runs: z.number().int().openapi({ description: "How many times it ran: a start while it runs makes it run again with the new inputs" }),
		created_at: z.string(),
		updated_at: z.string(),
		last: z
			.object({ ok: z.boolean(), detail: z.string().nullable(), reply: z.string().nullable() })
			.nullable()
			.openapi({ description: "How the last run ended; null before the first ends" }),
		events: z.array(AgentFrame).openapi({ description: "Its latest frames, oldest first" }),
	})
	.openapi("Workload");

type JsonSchema = { [key: string]: unknown };

/**
 * A contract schema's `$defs` as OpenAPI components named `<Prefix><Def>`, with its internal
 * `$ref`s pointed at them; the document then carries the envelopes exactly as contracts/ does.
 */
function asComponents(schema: { $defs: Record<string, unknown> }, prefix: string): Record<string, JsonSchema> {
	const rewrite = (value: unknown): unknown => {
		if (Array.isArray(value)) return value.map(rewrite);
		if (typeof value !== "object" || value === null) return value;
		return Object.fromEntries(
			Object.entries(value).map(([key, inner]) => [
				key,
				key === "$ref" && typeof inner === "string" ? inner.replace("#/$defs/", `#/components/schemas/${prefix}`) : rewrite(inner),
			]),
		);
	};
	return Object.fromEntries(Object.entries(schema.$defs).map(([name, def]) => [`${prefix}${name}`, rewrite(def) as JsonSchema]));
}

export const ENVELOPE_COMPONENTS = { ...asComponents(unitSchema, "UnitV1"), ...asComponents(eventSchema, "EventV1") };
export const invocationBodyRef = { $ref: "#/components/schemas/UnitV1Invocation" };
export const eventBodyRef = { $ref: "#/components/schemas/EventV1Event" };
