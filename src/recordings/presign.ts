/**
 * AWS Signature Version 4 query presigning (S3 "presigned URL"), with WebCrypto only, for R2's
 * S3-compatible endpoint. The signed request is a GET of one object with only the `host`
 * header signed and an unsigned payload, which is what a browser or curl sends.
 */

export interface PresignRequest {
	method?: "GET" | "HEAD";
	/** The object's URL: path style (`https://<account>.r2.cloudflarestorage.com/<bucket>/<key>`) or virtual host style. */
	url: URL;
	accessKeyId: string;
	secretAccessKey: string;
	/** R2 signs with region `auto`. */
	region: string;
	service?: string;
	expiresInSeconds: number;
	/** Signing time; injected so the signature is reproducible in tests. */
	date: Date;
}

const encoder = new TextEncoder();

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters, `/` optionally kept. */
export function uriEncode(text: string, keepSlash: boolean): string {
	let out = "";
	for (const byte of encoder.encode(text)) {
		const ch = String.fromCharCode(byte);
		if (/[A-Za-z0-9\-._~]/.test(ch) || (keepSlash && ch === "/")) out += ch;
		else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
	}
	return out;
}

async function hmac(key: ArrayBuffer | Uint8Array, message: string): Promise<ArrayBuffer> {
	const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
	return crypto.subtle.sign("HMAC", k, encoder.encode(message));
}

const hex = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");

/** `20130524T000000Z` */
export const amzDate = (date: Date) =>
	date
		.toISOString()
		.replace(/[-:]/g, "")
		.replace(/\.\d{3}/, "");

export async function presignUrl(request: PresignRequest): Promise<string> {
	const service = request.service ?? "s3";
	const stamp = amzDate(request.date);
	const day = stamp.slice(0, 8);
	const scope = `${day}/${request.region}/${service}/aws4_request`;
	const query: [string, string][] = [
		...[...request.url.searchParams.entries()],
		["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
		["X-Amz-Credential", `${request.accessKeyId}/${scope}`],
		["X-Amz-Date", stamp],
		["X-Amz-Expires", String(request.expiresInSeconds)],
		["X-Amz-SignedHeaders", "host"],
	];
	const canonicalQuery = query
		.map(([k, v]) => [uriEncode(k, false), uriEncode(v, false)] as const)
		.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
		.map(([k, v]) => `${k}=${v}`)
		.join("&");
	// The URL parser percent-encodes some characters already: decode, then encode the SigV4 way.
	const canonicalPath = uriEncode(decodeURIComponent(request.url.pathname), true);
	const canonicalRequest = [
		request.method ?? "GET",
		canonicalPath,
		canonicalQuery,
		`host:${request.url.host}\n`,
		"host",
		"UNSIGNED-PAYLOAD",
	].join("\n");
	const stringToSign = [
		"AWS4-HMAC-SHA256",
		stamp,
		scope,
		hex(await crypto.subtle.digest("SHA-256", encoder.encode(canonicalRequest))),
	].join("\n");
	let key = await hmac(encoder.encode(`AWS4${request.secretAccessKey}`), day);
	for (const part of [request.region, service, "aws4_request"]) key = await hmac(key, part);
	const signature = hex(await hmac(key, stringToSign));
	return `${request.url.origin}${canonicalPath}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}
