import { z } from "@hono/zod-openapi";

/** What a client sends to start an agent chat turn: shared by the chat route and the MCP chat tool. */

/** A session name: safe in a URL path and in a workload id. */
export const SessionName = z
	.string()
	.min(1)
	.max(100)
	.regex(/^[A-Za-z0-9._:-]+$/, "letters, digits and . _ : - only")
	.openapi({ example: "main" });

export const MAX_PROMPT_CHARS = 32_000;

export const ChatBody = z
	.object({
		prompt: z.string().min(1).max(MAX_PROMPT_CHARS),
		session: SessionName.optional(),
		/** The reference's legacy focus: a meeting id or a small object naming one. */
		active: z.union([z.string().max(2000), z.record(z.string(), z.unknown()), z.null()]).optional(),
		/** A client nonce: a retry with the same one reattaches to the turn it started. */
		turn_id: z.string().min(1).max(100).nullable().optional(),
	})
	.openapi("AgentChatRequest");

/** A chat turn as the route hands it to the user's agent (AgentUser.chat): the body, checked, and the resume point. */
export interface ChatRequest {
	prompt: string;
	session: string;
	/** The reference's legacy focus (a meeting, for example), passed to the model as context. */
	active?: string | null;
	/** A client nonce: a retry with the same one reattaches instead of starting a second turn. */
	turnId?: string | null;
	/** From `Last-Event-ID`: reattach after this frame, no new turn. */
	lastEventId?: number | null;
}
