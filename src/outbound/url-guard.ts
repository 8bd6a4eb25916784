/**
 * The one guard for every outbound URL a user controls (webhook, ICS feed, transcription and
 * model base URLs, audio and screen URLs). It refuses targets inside the deployment's own
 * network: loopback, private, link-local, cloud metadata, unspecified and reserved
 * addresses, however the address is spelled. A deployment that runs everything locally (dev,
 * tests) sets OUTBOUND_ALLOW_PRIVATE=true.
 *
 * Hostnames are judged by name, not resolved: a Worker cannot resolve DNS before fetch, and on
 * the edge a name that resolves to a private address does not reach a private network.
 * IPv4 in decimal, octal, hex or short form ("2130706433", "0x7f.1", "0177.0.0.1", "127.1")
 * is normalized by the WHATWG URL parser before it gets here; the guard checks the result.
 */
// No imports on purpose: the bot host loads this file under plain Node (type stripping, no
// bundler), so the Worker and the bot host judge addresses with this one table.

export type OutboundRefusal =
	| "invalid_url"
	| "scheme"
	| "credentials"
	| "loopback"
	| "private"
	| "link_local"
	| "metadata"
	| "unspecified"
	| "ipv4_mapped"
	| "reserved";

export type OutboundCheck = { ok: true; url: URL } | { ok: false; reason: OutboundRefusal; detail: string };

export interface OutboundPolicy {
	/** Allow loopback, private and link-local targets (never metadata endpoints). */
	allowPrivate: boolean;
}

/** Reads OUTBOUND_ALLOW_PRIVATE as `boolVar` does (src/env.ts); off unless set to a true value. */
export function outboundPolicy(env: { OUTBOUND_ALLOW_PRIVATE?: string }): OutboundPolicy {
	const value = (env.OUTBOUND_ALLOW_PRIVATE ?? "").toLowerCase();
	return { allowPrivate: ["1", "true", "yes", "on"].includes(value) };
}

// Cloud instance metadata: refused even when private targets are allowed, since nothing a
// user configures has a reason to read it and a leak there is a credential leak.
const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"]);
const METADATA_IPV4 = new Set(["169.254.169.254", "169.254.170.2", "168.63.129.16", "100.100.100.200"]);

export function checkOutboundUrl(input: string | URL, policy: OutboundPolicy): OutboundCheck {
	let url: URL;
	try {
		url = new URL(input);
	} catch {
		return refuse("invalid_url", "not a valid URL");
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") return refuse("scheme", `scheme ${url.protocol} is not allowed`);
	if (url.username !== "" || url.password !== "") return refuse("credentials", "credentials in the URL are not allowed");
	const host = url.hostname.toLowerCase().replace(/\.$/, "");
	if (host === "") return refuse("invalid_url", "no host");

	const category = classifyHost(host);
	if (category === "metadata") return refuse("metadata", "cloud metadata endpoints are never allowed");
	if (category !== "public" && !policy.allowPrivate) return refuse(category, `${category.replace("_", "-")} target ${host} is not allowed`);
	return { ok: true, url };
}

/**
 * Judges one address as DNS returned it (IPv4 dotted, or IPv6 without brackets): for callers
 * that resolve names themselves (the bot host) and then connect to exactly that address.
 */
export function checkResolvedAddress(
	address: string,
	policy: OutboundPolicy,
): { ok: true } | { ok: false; reason: OutboundRefusal; detail: string } {
	const v4 = parseDottedIpv4(address);
	const v6 = v4 ? null : parseIpv6(address.replace(/%.*$/, ""));
	const category: HostCategory = v4 ? classifyIpv4(v4) : v6 ? classifyIpv6(v6) : "reserved";
	if (category === "public") return { ok: true };
	if (category === "metadata") return { ok: false, reason: "metadata", detail: "cloud metadata endpoints are never allowed" };
	if (policy.allowPrivate) return { ok: true };
	return { ok: false, reason: category, detail: `${category.replace("_", "-")} address ${address} is not allowed` };
}

type HostCategory = Exclude<OutboundRefusal, "invalid_url" | "scheme" | "credentials"> | "public";

function classifyHost(host: string): HostCategory {
	if (host.startsWith("[") && host.endsWith("]")) {
		const groups = parseIpv6(host.slice(1, -1));
		return groups ? classifyIpv6(groups) : "reserved";
	}
	const v4 = parseDottedIpv4(host);
	if (v4) return classifyIpv4(v4);
	// A name whose last label is numeric should have been normalized to an address above; any
	// that was not is an address spelled in a way the guard cannot judge.
	if (/^(0x[0-9a-f]*|\d+)$/.test(host.split(".").pop() ?? "")) return "reserved";
	if (METADATA_HOSTS.has(host)) return "metadata";
	if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
	return "public";
}

function parseDottedIpv4(host: string): number[] | null {
	const parts = host.split(".");
	if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p))) return null;
	const octets = parts.map(Number);
	return octets.every((o) => o <= 255) ? octets : null;
}

function classifyIpv4(o: number[]): HostCategory {
	const [a = 0, b = 0] = o;
	if (METADATA_IPV4.has(o.join("."))) return "metadata";
	if (a === 0) return "unspecified"; // 0.0.0.0/8: "this network"; 0.0.0.0 reaches the host itself
	if (a === 127) return "loopback";
	if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
	if (a === 100 && b >= 64 && b <= 127) return "private"; // carrier-grade NAT, shared address space
	if (a === 169 && b === 254) return "link_local";
	if (a >= 224) return "reserved"; // multicast, reserved, broadcast
	return "public";
}

function classifyIpv6(g: number[]): HostCategory {
	const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
	const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
	if (firstFiveZero && g5 === 0 && g6 === 0 && g7 === 0) return "unspecified";
	if (firstFiveZero && g5 === 0 && g6 === 0 && g7 === 1) return "loopback";
	// ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) reach IPv4 through an IPv6 literal.
	if (firstFiveZero && (g5 === 0xffff || g5 === 0)) return classifyIpv4(embedded(g6, g7)) === "metadata" ? "metadata" : "ipv4_mapped";
	if ((g0 & 0xfe00) === 0xfc00) return "private"; // fc00::/7 unique local
	if ((g0 & 0xffc0) === 0xfe80) return "link_local"; // fe80::/10
	if ((g0 & 0xffc0) === 0xfec0) return "private"; // fec0::/10, deprecated site-local
	if ((g0 & 0xff00) === 0xff00) return "reserved"; // multicast
	// NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address: judge that address.
	if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyIpv4(embedded(g6, g7));
	if (g0 === 0x2002) return classifyIpv4(embedded(g1, g2));
	return "public";
}

const embedded = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

/** Eight 16-bit groups of an IPv6 literal (with `::` and a dotted IPv4 tail), or null. */
function parseIpv6(text: string): number[] | null {
	const halves = text.split("::");
	if (halves.length > 2) return null;
	const side = (s: string): number[] | null => {
		if (s === "") return [];
		const groups: number[] = [];
		const parts = s.split(":");
		for (const [i, part] of parts.entries()) {
			if (i === parts.length - 1 && part.includes(".")) {
				const v4 = parseDottedIpv4(part);
				if (!v4) return null;
				groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
			} else if (/^[0-9a-f]{1,4}$/i.test(part)) groups.push(Number.parseInt(part, 16));
			else return null;
		}
		return groups;
	};
	const head = side(halves[0] ?? "");
	const tail = halves.length === 2 ? side(halves[1] ?? "") : [];
	if (!head || !tail) return null;
	if (halves.length === 1) return head.length === 8 ? head : null;
	const missing = 8 - head.length - tail.length;
	return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}

function refuse(reason: OutboundRefusal, detail: string): OutboundCheck {
	return { ok: false, reason, detail };
}
