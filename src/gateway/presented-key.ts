import { ApiError } from "../errors";

/** The token of an `Authorization: Bearer <token>` header, or undefined for any other form. */
export function bearerToken(header: string | null | undefined): string | undefined {
	return header?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
}

/**
 * The API key a request presents: `X-API-Key`, or `Authorization: Bearer <key>` as most HTTP
 * clients and MCP clients send it (docs/api.md#conventions). Both at once must agree: two
 * different keys are a client mistake, and picking one would act as an account the caller did
 * not mean. The refusal names the headers, never the keys.
 */
export function presentedKey(headers: Headers): string | undefined {
	const header = headers.get("x-api-key") ?? undefined;
	const bearer = bearerToken(headers.get("authorization"));
	if (header !== undefined && bearer !== undefined && header !== bearer) {
		throw new ApiError(400, "X-API-Key and Authorization: Bearer carry different keys; send one key, in either header");
	}
	return header ?? bearer;
}
