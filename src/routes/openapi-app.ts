import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { errorResponse, zodFieldErrors } from "../errors";

/** Every route module builds on this, so a failed schema is always the same 422 shape. */
export function routeModule() {
	return new OpenAPIHono<AppEnv>({
		defaultHook: (result, c) => {
			if (!result.success) return errorResponse(c, 422, zodFieldErrors(result.error, result.target === "json" ? "body" : result.target));
		},
	});
}

export const jsonBody = <T>(schema: T, description?: string) => ({
	required: true,
	content: { "application/json": { schema } },
	...(description ? { description } : {}),
});

export const jsonResponse = <T>(schema: T, description: string) => ({
	content: { "application/json": { schema } },
	description,
});

/** Every error body: `{detail}`, a sentence, or the field errors of a 422 (docs/api.md#errors). */
export const ApiErrorBody = z
	.object({
		detail: z.union([
			z.string(),
			z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }).openapi("ValidationError")),
		]),
	})
	.openapi("Error");
