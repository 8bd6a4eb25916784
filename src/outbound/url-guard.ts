/**
 * The one guard for every outbound URL a user controls (webhook, ICS feed, transcription and
 * model base URLs, audio and screen URLs). It refuses targets inside the deployment's own
 * network: loopback, private, link-local, cloud metadata, unspecified and reserved
 * addresses, however the address is spelled. A deployment that runs everything locally (dev,
 * tests) sets OUTBOUND_ALLOW_PRIVATE=true; metadata endpoints stay refused even then.
 *
 * Hostnames are judged by name, not resolved: a Worker cannot resolve DNS before fetch, and on
 * the edge a name that resolves to a private address does not reach a private network. Names
 * that are public wildcard DNS for an address written into them (`127.0.0.1.nip.io`,
 * `10-0-0-1.sslip.io`) are judged as that address, and well-known names that always resolve
 * to loopback (`localtest.me`, `*.localhost`) as loopback. A name without a dot (`vm`,
 * `redis`) and names under suffixes only private networks answer (`.internal`, `.lan`,
 * `.corp`, ...) are private: off Cloudflare (workerd, `wrangler dev`) `fetch` resolves them
 * through /etc/hosts and the search domains, inside the network. Any other name is public here;
 * a self-hosted gateway needs an egress proxy to stop a public name that resolves inside.
 * Code that resolves names itself (the bot host) judges each resolved address with
 * `checkResolvedAddress`.
 *
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
	/** Allow loopback, private, link-local and reserved targets (never metadata endpoints). */
	allowPrivate: boolean;
}

/** Reads OUTBOUND_ALLOW_PRIVATE as `boolVar` does (src/env.ts); off unless set to a true value. */
export function outboundPolicy(env: { OUTBOUND_ALLOW_PRIVATE?: string }): OutboundPolicy {
	const value = (env.OUTBOUND_ALLOW_PRIVATE ?? "").toLowerCase();
	return { allowPrivate: ["1", "true", "yes", "on"].includes(value) };
}

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
	const verdict = judge(classifyHost(host), `target ${host}`, policy);
	if (verdict.ok) return { ok: true, url };
	// Say why a bare name counts as private: it looks like any other name.
	return isSingleLabel(host) && verdict.reason === "private"
		? { ...verdict, detail: `${verdict.detail}: a name without a dot is resolved inside the network` }
		: verdict;
}

/**
 * Judges one IP address literal as DNS resolution returned it (`"1.2.3.4"`, or IPv6 such as
 * `"::1"` without brackets), with the same table as `checkOutboundUrl`: for callers that
 * resolve a name themselves and then connect to exactly that address.
 */
export function checkResolvedAddress(
	address: string,
	policy: OutboundPolicy,
): { ok: true } | { ok: false; reason: OutboundRefusal; detail: string } {
	const text = address.trim().replace(/^\[(.*)\]$/, "$1");
	const category = classifyAddress(text);
	if (!category) return refuse("reserved", `${text} is not an IP address`);
	return judge(category, `address ${text}`, policy);
}

type HostCategory = Exclude<OutboundRefusal, "invalid_url" | "scheme" | "credentials"> | "public";
type Verdict = { ok: true } | { ok: false; reason: OutboundRefusal; detail: string };

function judge(category: HostCategory, what: string, policy: OutboundPolicy): Verdict {
	if (category === "public") return { ok: true };
	if (category === "metadata") return refuse("metadata", "cloud metadata endpoints are never allowed");
	if (policy.allowPrivate) return { ok: true };
	return refuse(category, `${category.replace("_", "-")} ${what} is not allowed`);
}

// Cloud instance metadata: refused even when private targets are allowed, since nothing a
// user configures has a reason to read it and a leak there is a credential leak.
const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"]);
const METADATA_IPV4 = new Set([
	"169.254.169.254", // AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean
	"169.254.170.2", // AWS ECS task credentials
	"168.63.129.16", // Azure wire server
	"100.100.100.200", // Alibaba Cloud
]);
const METADATA_IPV6 = ["fd00:ec2::254", "fd20:ce::254"]; // AWS IMDS and GCP metadata over IPv6

/** Names that resolve to a local network whatever DNS says, or always to loopback. */
const LOCAL_NAMES: [suffix: string, category: HostCategory][] = [
	["localhost", "loopback"], // RFC 6761: localhost and every name under it
	["localtest.me", "loopback"], // public wildcard DNS: the name and every subdomain → 127.0.0.1
	["lvh.me", "loopback"], // same
	["vcap.me", "loopback"], // same
	["lacolhost.com", "loopback"], // same
	["localho.st", "loopback"], // same
	["local", "private"], // mDNS (RFC 6762): answered on the local link
	["internal", "private"], // reserved for private networks (e.g. *.ec2.internal)
	["home.arpa", "private"], // home networks (RFC 8375)
	["localdomain", "private"], // the conventional local search domain
	// Suffixes never delegated in public DNS that private networks use for their own names.
	["lan", "private"],
	["intranet", "private"],
	["corp", "private"], // withheld from delegation by ICANN (name collisions)
	["home", "private"], // same
	["private", "private"],
	["svc", "private"], // Kubernetes services (`redis.default.svc`), completed by the search domains
	["consul", "private"], // Consul service discovery
];

/** IPv4 special-purpose ranges (IANA registry, RFC 6890): anything not listed is public. */
const IPV4_SPECIAL: [cidr: string, category: HostCategory][] = [
	["0.0.0.0/8", "unspecified"], // "this network"; 0.0.0.0 reaches the host itself
	["10.0.0.0/8", "private"], // RFC 1918
	["100.64.0.0/10", "private"], // carrier-grade NAT shared space (RFC 6598): a provider's inside
	["127.0.0.0/8", "loopback"], // RFC 1122
	["169.254.0.0/16", "link_local"], // RFC 3927; most cloud metadata lives here
	["172.16.0.0/12", "private"], // RFC 1918
	["192.0.0.0/24", "reserved"], // IETF protocol assignments: DS-Lite, NAT64 discovery, ...
	["192.0.2.0/24", "reserved"], // TEST-NET-1, documentation (RFC 5737)
	["192.88.99.0/24", "reserved"], // 6to4 relay anycast, deprecated (RFC 7526)
	["192.168.0.0/16", "private"], // RFC 1918
	["198.18.0.0/15", "reserved"], // benchmarking (RFC 2544): lab networks
	["198.51.100.0/24", "reserved"], // TEST-NET-2, documentation
	["203.0.113.0/24", "reserved"], // TEST-NET-3, documentation
	["224.0.0.0/4", "reserved"], // multicast (RFC 5771)
	["240.0.0.0/4", "reserved"], // reserved for future use (RFC 1112), not routed
	["255.255.255.255/32", "reserved"], // limited broadcast (inside 240/4; listed for the reader)
];

/**
 * IPv6 special-purpose ranges, first match wins. `embedded` ranges are judged as the IPv4
 * address they carry; a range that carries one is refused as metadata when that address is.
 */
type Carried = (g: number[]) => number[];
const last32: Carried = (g) => octets(g[6], g[7]);
const sixToFour: Carried = (g) => octets(g[1], g[2]);
const teredoClient: Carried = (g) => octets((g[6] ?? 0) ^ 0xffff, (g[7] ?? 0) ^ 0xffff);

const IPV6_SPECIAL: [prefix: string, category: HostCategory | "embedded", carries?: Carried][] = [
	["::/128", "unspecified"], // RFC 4291
	["::1/128", "loopback"], // RFC 4291
	["::ffff:0:0/96", "ipv4_mapped", last32], // IPv4-mapped: reaches IPv4 through an IPv6 literal
	["::ffff:0:0:0/96", "ipv4_mapped", last32], // IPv4-translated (SIIT, RFC 6145)
	["::/96", "ipv4_mapped", last32], // IPv4-compatible, deprecated (RFC 4291)
	["64:ff9b::/96", "embedded", last32], // NAT64 well-known prefix (RFC 6052)
	["64:ff9b:1::/48", "private", last32], // NAT64 local use (RFC 8215): the operator's own translator
	["100::/64", "reserved"], // discard only (RFC 6666)
	["2001::/32", "reserved", teredoClient], // Teredo (RFC 4380): client IPv4 inverted in the last 32 bits
	["2001:2::/48", "reserved"], // benchmarking (RFC 5180)
	["2001:10::/28", "reserved"], // ORCHID, deprecated (RFC 4843)
	["2001:20::/28", "reserved"], // ORCHIDv2 (RFC 7343)
	["2001:db8::/32", "reserved"], // documentation (RFC 3849)
	["2002::/16", "embedded", sixToFour], // 6to4 (RFC 3056): the IPv4 in bits 16-47
	["3fff::/20", "reserved"], // documentation (RFC 9637)
	["5f00::/16", "reserved"], // SRv6 SIDs (RFC 9602)
	["fc00::/7", "private"], // unique local (RFC 4193)
	["fe80::/10", "link_local"], // RFC 4291
	["fec0::/10", "private"], // site-local, deprecated (RFC 3879)
	["ff00::/8", "reserved"], // multicast
];

function classifyHost(host: string): HostCategory {
	if (host.startsWith("[") && host.endsWith("]")) return classifyAddress(host.slice(1, -1)) ?? "reserved";
	const v4 = parseDottedIpv4(host);
	if (v4) return classifyIpv4(v4);
	// A name whose last label is numeric should have been normalized to an address above; any
	// that was not is an address spelled in a way the guard cannot judge.
	if (/^(0x[0-9a-f]*|\d+)$/.test(host.split(".").pop() ?? "")) return "reserved";
	if (METADATA_HOSTS.has(host)) return "metadata";
	const local = LOCAL_NAMES.find(([suffix]) => host === suffix || host.endsWith(`.${suffix}`));
	if (local) return local[1];
	if (isSingleLabel(host)) return "private";
	return classifyEmbedded(host);
}

/** `vm`, `redis`: no public DNS name is one label, so a resolver completes it from the local network. */
function isSingleLabel(host: string): boolean {
	return !host.includes(".") && !host.startsWith("[");
}

/** One IP literal (IPv4 dotted or IPv6 without brackets, zone id ignored), or null. */
function classifyAddress(text: string): HostCategory | null {
	if (text.includes(":")) {
		const groups = parseIpv6(text.replace(/%.*$/, ""));
		return groups ? classifyIpv6(groups) : null;
	}
	const v4 = parseDottedIpv4(text);
	return v4 ? classifyIpv4(v4) : null;
}

/**
 * Wildcard DNS services answer any name that spells an address with that address: dotted
 * (`10.0.0.1.nip.io`), dashed (`ip-10-0-0-1.sslip.io`), hex (`magic-0a000001.nip.io`) or IPv6
 * with dashes (`--1.sslip.io`). A name that spells a non-public address is judged as it.
 */
function classifyEmbedded(host: string): HostCategory {
	const found: HostCategory[] = [];
	const tokens = host.split(/[.-]/);
	for (let i = 0; i + 4 <= tokens.length; i++) {
		const quad = tokens.slice(i, i + 4);
		if (quad.every((t) => /^\d{1,3}$/.test(t) && Number(t) <= 255)) found.push(classifyIpv4(quad.map(Number)));
	}
	// Hex and dashed-IPv6 spellings also match ordinary labels ("f3a9c2d1", "ab--cd"), so for
	// them only the ranges that reach into a network count, not "reserved".
	const reachesNetwork = (c: HostCategory) => c !== "public" && c !== "reserved";
	for (const t of tokens) {
		if (!/^[0-9a-f]{8}$/.test(t)) continue;
		const category = classifyIpv4(octets(Number.parseInt(t.slice(0, 4), 16), Number.parseInt(t.slice(4), 16)));
		if (reachesNetwork(category)) found.push(category);
	}
	for (const label of host.split(".")) {
		const groups = /^[0-9a-f-]+$/.test(label) && label.includes("--") ? parseIpv6(label.replaceAll("-", ":")) : null;
		const category = groups ? classifyIpv6(groups) : "public";
		if (reachesNetwork(category)) found.push(category);
	}
	if (found.includes("metadata")) return "metadata";
	return found.find((c) => c !== "public") ?? "public";
}

function parseDottedIpv4(host: string): number[] | null {
	const parts = host.split(".");
	if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p))) return null;
	const o = parts.map(Number);
	return o.every((x) => x <= 255) ? o : null;
}

const ipv4Ranges = IPV4_SPECIAL.map(([cidr, category]) => {
	const [base = "", len = "32"] = cidr.split("/");
	return { base: ipv4Number(parseDottedIpv4(base) ?? []), size: 2 ** (32 - Number(len)), category };
});

function ipv4Number(o: number[]): number {
	return o.reduce((n, x) => n * 256 + x, 0);
}

function classifyIpv4(o: number[]): HostCategory {
	if (METADATA_IPV4.has(o.join("."))) return "metadata";
	const n = ipv4Number(o);
	return ipv4Ranges.find((r) => Math.floor(n / r.size) === Math.floor(r.base / r.size))?.category ?? "public";
}

const ipv6Ranges = IPV6_SPECIAL.map(([prefix, category, carries]) => {
	const [base = "", len = "128"] = prefix.split("/");
	return { groups: parseIpv6(base) ?? [], bits: Number(len), category, carries };
});
const metadataIpv6 = new Set(METADATA_IPV6.map((a) => (parseIpv6(a) ?? []).join(":")));

function classifyIpv6(g: number[]): HostCategory {
	if (metadataIpv6.has(g.join(":"))) return "metadata";
	const range = ipv6Ranges.find((r) => inPrefix(g, r.groups, r.bits));
	if (!range) {
		// Outside 2000::/3 nothing is allocated for global unicast.
		return ((g[0] ?? 0) & 0xe000) === 0x2000 ? "public" : "reserved";
	}
	const carried = range.carries ? classifyIpv4(range.carries(g)) : null;
	if (carried === "metadata") return "metadata";
	return range.category === "embedded" ? (carried ?? "public") : range.category;
}

function inPrefix(g: number[], prefix: number[], bits: number): boolean {
	for (let i = 0; i < 8 && bits > 16 * i; i++) {
		const mask = (0xffff << (16 - Math.min(16, bits - 16 * i))) & 0xffff;
		if (((g[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
	}
	return true;
}

function octets(hi = 0, lo = 0): number[] {
	return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

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
				groups.push(...octetsToGroups(v4));
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

function octetsToGroups([a = 0, b = 0, c = 0, d = 0]: number[]): number[] {
	return [(a << 8) | b, (c << 8) | d];
}

function refuse(reason: OutboundRefusal, detail: string): { ok: false; reason: OutboundRefusal; detail: string } {
	return { ok: false, reason, detail };
}
