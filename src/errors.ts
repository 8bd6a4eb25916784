import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError } from "zod";
import { errorText } from "./error-text";
import { redactUrlSecrets } from "./url-secrets";

/** One field error of a 422, in the shape existing clients parse (docs/api.md#errors). */
export interface FieldError {
	loc: (string | number)[];
	msg: string;
	type: string;
}

/** A client-facing failure: status, `detail`, and optional headers such as Retry-After. */
export class ApiError extends Error {
	constructor(
		readonly status: ContentfulStatusCode,
		readonly detail: string | FieldError[],
		readonly headers: Record<string, string> = {},
	) {
		super(typeof detail === "string" ? detail : "validation failed");
	}
}

export const notFound = (detail = "Not Found") => new ApiError(404, detail);
export const conflict = (detail: string) => new ApiError(409, detail);

/** A 422 for one field, for rules checked after the schema (e.g. a URL's host). */
export function invalidField(loc: (string | number)[], msg: string, type = "value_error"): ApiError {
	return new ApiError(422, [{ loc, msg, type }]);
}

export function zodFieldErrors(error: ZodError, target: string): FieldError[] {
	return error.issues.map((issue) => {
		const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
		return { loc: [target, ...path], msg: notANumber(issue, path) ?? issue.message, type: issue.code };
	});
}

/**
 * Words for a number field given something else (`/recordings/abc`, `?limit=ten`): zod's own
 * are "expected number, received NaN", which tells a caller nothing they typed.
 */
function notANumber(issue: ZodError["issues"][number], path: (string | number)[]): string | null {
	// A route's own words for the field (e.g. a meeting id's) stay.
	if (issue.code !== "invalid_type" || issue.expected !== "number" || !issue.message.endsWith("expected number, received NaN")) return null;
	const field = path.at(-1) ?? "value";
	return `${field} must be a number`;
}

export function errorResponse(
	c: Context,
	status: ContentfulStatusCode,
	detail: string | FieldError[],
	headers: Record<string, string> = {},
) {
	return c.json({ detail }, status, headers);
}

/** The one place an exception becomes a response. Unknown errors are 500 without internals. */
export function mapError(err: Error, c: Context): Response {
	if (err instanceof ApiError) return errorResponse(c, err.status, err.detail, err.headers);
	if (err instanceof HTTPException) {
		const detail = err.status === 413 ? "Request body too large" : redactUrlSecrets(err.message) || "Bad request";
		return errorResponse(c, err.status as ContentfulStatusCode, detail);
	}
	// A message can quote the request's URL, `?api_key=` included: never into a log in full.
	console.error("unhandled error", err.name, errorText(err));
	return errorResponse(c, 500, "Internal server error");
}
