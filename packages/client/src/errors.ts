/**
 * Every non-2xx answer becomes a `MeetbotApiError` carrying the status and the API's `detail`
 * (a sentence, or the field list of a 422: docs/api.md#errors). Subclasses name the statuses a
 * caller branches on; `kind` is the same fact as a discriminant for `switch`. Messages are built
 * from the method, the path and the detail only: the key is never in a URL, so never in an error.
 */

/** One field error of a 422. */
export interface FieldError {
	loc: (string | number)[];
	msg: string;
	type: string;
}

export type ErrorKind = "unauthorized" | "forbidden" | "not_found" | "conflict" | "validation" | "rate_limited" | "other";

export class MeetbotApiError extends Error {
	readonly kind: ErrorKind = "other";
	constructor(
		readonly status: number,
		readonly detail: string | FieldError[],
		/** The route as called, e.g. `GET /meetings/42`. */
		readonly route: string,
	) {
		super(`${route}: ${status} ${detailText(detail)}`);
		this.name = new.target.name;
	}
}

export class UnauthorizedError extends MeetbotApiError {
	override readonly kind = "unauthorized";
}
export class ForbiddenError extends MeetbotApiError {
	override readonly kind = "forbidden";
}
export class NotFoundError extends MeetbotApiError {
	override readonly kind = "not_found";
}
export class ConflictError extends MeetbotApiError {
	override readonly kind = "conflict";
}
export class ValidationError extends MeetbotApiError {
	override readonly kind = "validation";
	/** The field errors; a 422 whose detail is a sentence has one entry with an empty `loc`. */
	get fields(): FieldError[] {
		return typeof this.detail === "string" ? [{ loc: [], msg: this.detail, type: "value_error" }] : this.detail;
	}
}
export class RateLimitError extends MeetbotApiError {
	override readonly kind = "rate_limited";
	constructor(
		status: number,
		detail: string | FieldError[],
		route: string,
		/** Seconds to wait, from `Retry-After`; undefined when the answer had none. */
		readonly retryAfter: number | undefined,
	) {
		super(status, detail, route);
	}
}

function detailText(detail: string | FieldError[]): string {
	if (typeof detail === "string") return detail;
	return detail.map((f) => `${f.loc.join(".")}: ${f.msg}`).join("; ");
}

function isFieldList(value: unknown): value is FieldError[] {
	return (
		Array.isArray(value) && value.every((f) => typeof f === "object" && f !== null && Array.isArray(f.loc) && typeof f.msg === "string")
	);
}

/** Reads a failed answer's `{detail}`; a body that is not the API's error shape keeps its status text. */
export async function errorFromResponse(response: Response, route: string): Promise<MeetbotApiError> {
	let text = "";
	try {
		text = await response.text();
	} catch (err) {
		// A call aborted while its answer was being read was not refused: the abort is what happened.
		if (err instanceof Error && err.name === "AbortError") throw err;
	}
	let detail: string | FieldError[] = response.statusText || `HTTP ${response.status}`;
	try {
		const body = JSON.parse(text) as { detail?: unknown };
		if (typeof body.detail === "string" || isFieldList(body.detail)) detail = body.detail;
	} catch {
		// Not JSON (a proxy's page): the status text says enough, and the page is not echoed.
	}
	switch (response.status) {
		case 401:
			return new UnauthorizedError(401, detail, route);
		case 403:
			return new ForbiddenError(403, detail, route);
		case 404:
			return new NotFoundError(404, detail, route);
		case 409:
			return new ConflictError(409, detail, route);
		case 422:
			return new ValidationError(422, detail, route);
		case 429:
			return new RateLimitError(429, detail, route, retryAfterSeconds(response.headers.get("retry-after")));
		default:
			return new MeetbotApiError(response.status, detail, route);
	}
}

function retryAfterSeconds(header: string | null): number | undefined {
	if (header === null) return undefined;
	if (/^\d+$/.test(header.trim())) return Number(header.trim());
	const at = Date.parse(header);
	return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
