import { describe, expect, it } from "vitest";
import { checkOutboundUrl, checkResolvedAddress, type OutboundRefusal, outboundPolicy } from "../../../src/outbound/url-guard";

const STRICT = { allowPrivate: false };
const LOCAL = { allowPrivate: true };

/** URL, refusal when private targets are not allowed (null: allowed), refusal when they are. */
const CASES: [string, OutboundRefusal | null, OutboundRefusal | null][] = [
	// Ordinary public targets
	["https://hooks.example.com/meetbot?token=abc", null, null],
	["http://receiver.example.org:8080/hook", null, null],
	["https://8.8.8.8/", null, null],
	["http://172.15.255.255/", null, null],
	["http://172.32.0.1/", null, null],
	["http://[2606:4700:4700::1111]/", null, null],
	// Never allowed: scheme, credentials, garbage
	["ftp://files.example.com/x", "scheme", "scheme"],
	["file:///etc/passwd", "scheme", "scheme"],
	["javascript:alert(1)", "scheme", "scheme"],
	["ws://hooks.example.com/", "scheme", "scheme"],
	["https://user:secret@hooks.example.com/", "credentials", "credentials"],
	["https://user@hooks.example.com/", "credentials", "credentials"],
	["not a url", "invalid_url", "invalid_url"],
	["http://1.2.3.999/", "invalid_url", "invalid_url"],
	// Cloud metadata: never allowed, however it is named
	["http://169.254.169.254/latest/meta-data/", "metadata", "metadata"],
	["http://metadata.google.internal/computeMetadata/v1/", "metadata", "metadata"],
	["http://METADATA.google.internal./", "metadata", "metadata"],
	["http://2852039166/latest/meta-data/", "metadata", "metadata"],
	["http://[::ffff:169.254.169.254]/", "metadata", "metadata"],
	// Loopback in every spelling
	["http://127.0.0.1:8787/", "loopback", null],
	["http://127.255.1.2/", "loopback", null],
	["http://localhost:8787/hook", "loopback", null],
	["http://LOCALHOST./", "loopback", null],
	["http://api.localhost/", "loopback", null],
	["http://2130706433/", "loopback", null],
	["http://0x7f000001/", "loopback", null],
	["http://0x7f.1/", "loopback", null],
	["http://0177.0.0.1/", "loopback", null],
	["http://127.1/", "loopback", null],
	["http://[::1]:8787/", "loopback", null],
	["http://[0:0:0:0:0:0:0:1]/", "loopback", null],
	["http://[64:ff9b::7f00:1]/", "loopback", null],
	["http://[2002:7f00:1::]/", "loopback", null],
	// Unspecified
	["http://0.0.0.0:8080/", "unspecified", null],
	["http://0/", "unspecified", null],
	["http://[::]/", "unspecified", null],
	// Private ranges
	["http://10.0.0.5/", "private", null],
	["http://172.16.0.1/", "private", null],
	["http://172.31.255.255/", "private", null],
	["http://192.168.1.10/", "private", null],
	["http://0xc0a80101/", "private", null],
	["http://100.64.0.1/", "private", null],
	["http://[fd01::1]/", "private", null],
	["http://[fc00::1]/", "private", null],
	// Link-local
	["http://169.254.1.1/", "link_local", null],
	["http://[fe80::1]/", "link_local", null],
	// IPv4 reached through IPv6
	["http://[::ffff:127.0.0.1]/", "ipv4_mapped", null],
	["http://[::ffff:8.8.8.8]/", "ipv4_mapped", null],
	["http://[::ffff:7f00:1]/", "ipv4_mapped", null],
	["http://[::127.0.0.1]/", "ipv4_mapped", null],
	// Multicast, broadcast, reserved
	["http://224.0.0.1/", "reserved", null],
	["http://255.255.255.255/", "reserved", null],
	["http://[ff02::1]/", "reserved", null],
	// Special-purpose ranges the review found allowed (security review items 3 and 19)
	["http://[::ffff:0:7f00:1]/", "ipv4_mapped", null],
	["http://[::ffff:0:a9fe:a9fe]/", "metadata", "metadata"],
	["http://[64:ff9b:1::a9fe:a9fe]/", "metadata", "metadata"],
	["http://[64:ff9b:1::808:808]/", "private", null],
	["http://[64:ff9b::a00:1]/", "private", null],
	["http://[64:ff9b::a9fe:a9fe]/", "metadata", "metadata"],
	["http://198.18.0.1/", "reserved", null],
	["http://198.19.255.254/", "reserved", null],
	["http://192.0.0.8/", "reserved", null],
	["http://192.0.2.1/", "reserved", null],
	["http://198.51.100.7/", "reserved", null],
	["http://203.0.113.9/", "reserved", null],
	["http://192.88.99.1/", "reserved", null],
	["http://100.127.255.254/", "private", null],
	["http://239.255.255.250/", "reserved", null],
	["http://240.0.0.1/", "reserved", null],
	["http://[2002:a9fe:a9fe::]/", "metadata", "metadata"],
	["http://[2002:c0a8:101::]/", "private", null],
	["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "reserved", null],
	["http://[2001:0:4136:e378:8000:63bf:5601:5601]/", "metadata", "metadata"],
	["http://[2001:db8::1]/", "reserved", null],
	["http://[3fff::1]/", "reserved", null],
	["http://[100::1]/", "reserved", null],
	["http://[2001:2::1]/", "reserved", null],
	["http://[4000::1]/", "reserved", null],
	["http://[fd00:ec2::254]/", "metadata", "metadata"],
	["http://[fd20:ce::254]/", "metadata", "metadata"],
	["http://100.100.100.200/", "metadata", "metadata"],
	["http://168.63.129.16/", "metadata", "metadata"],
	// Names that are wildcard DNS for an address written into them, or always loopback
	["http://169.254.169.254.nip.io/", "metadata", "metadata"],
	["http://127.0.0.1.nip.io:18057/", "loopback", null],
	["http://app.10.0.0.5.nip.io/", "private", null],
	["http://127-0-0-1.sslip.io/", "loopback", null],
	["http://ip-169-254-169-254.sslip.io/", "metadata", "metadata"],
	["http://magic-7f000001.nip.io/", "loopback", null],
	["http://a9fea9fe.nip.io/", "metadata", "metadata"],
	["http://--1.sslip.io/", "loopback", null],
	["http://fe80--1.sslip.io/", "link_local", null],
	["http://192.0.2.1.nip.io/", "reserved", null],
	["http://localtest.me/", "loopback", null],
	["http://sub.localtest.me/", "loopback", null],
	["http://lvh.me/", "loopback", null],
	["http://api.vcap.me/", "loopback", null],
	["http://printer.local/", "private", null],
	["http://db.internal/", "private", null],
	["http://nas.home.arpa/", "private", null],
	// Names without a dot, and suffixes only private networks answer: off Cloudflare the resolver
	// completes them from /etc/hosts and the search domains (security review finding 13)
	["http://vm:29010/hook", "private", null],
	["http://redis/", "private", null],
	["https://JENKINS./job", "private", null],
	["http://router.lan/", "private", null],
	["http://wiki.intranet/", "private", null],
	["http://build.corp/", "private", null],
	["http://nas.home/", "private", null],
	["http://redis.default.svc/", "private", null],
	["http://vault.service.consul/", "private", null],
	["http://metadata/computeMetadata/v1/", "metadata", "metadata"],
	// Names that only look like addresses in part stay public
	["http://8.8.8.8.nip.io/", null, null],
	["http://f3a9c2d1.example.com/", null, null],
	["http://build-2024-10-01.example.com/", null, null],
	["http://xn--bcher-kva.example/", null, null],
	["http://ab--cd.example.com/", null, null],
	["http://localtest.me.example.com/", null, null],
];

describe("checkOutboundUrl", () => {
	it.each(CASES)("%s → %s (strict), %s (private allowed)", (url, strict, local) => {
		const s = checkOutboundUrl(url, STRICT);
		const l = checkOutboundUrl(url, LOCAL);
		expect(s.ok ? null : s.reason).toBe(strict);
		expect(l.ok ? null : l.reason).toBe(local);
	});

	it("returns the parsed URL when it allows one", () => {
		const result = checkOutboundUrl("https://hooks.example.com/a?b=c", STRICT);
		expect(result.ok && result.url.href).toBe("https://hooks.example.com/a?b=c");
	});

	it("says why a name without a dot is refused", () => {
		expect(checkOutboundUrl("http://vm:29010/hook", STRICT)).toEqual({
			ok: false,
			reason: "private",
			detail: "private target vm is not allowed: a name without a dot is resolved inside the network",
		});
	});

	it("explains a refusal without echoing credentials", () => {
		const result = checkOutboundUrl("https://user:hunter2@hooks.example.com/", STRICT);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.detail).not.toContain("hunter2");
	});
});

/** An address as DNS returns it, and its refusal when private targets are not allowed / are. */
const RESOLVED: [string, OutboundRefusal | null, OutboundRefusal | null][] = [
	["93.184.215.14", null, null],
	["2606:4700:4700::1111", null, null],
	["127.0.0.1", "loopback", null],
	["::1", "loopback", null],
	["10.1.2.3", "private", null],
	["100.64.0.1", "private", null],
	["fd12:3456::1", "private", null],
	["fe80::1%eth0", "link_local", null],
	["169.254.169.254", "metadata", "metadata"],
	["fd00:ec2::254", "metadata", "metadata"],
	["::ffff:169.254.169.254", "metadata", "metadata"],
	["::ffff:127.0.0.1", "ipv4_mapped", null],
	["64:ff9b::7f00:1", "loopback", null],
	["0.0.0.0", "unspecified", null],
	["::", "unspecified", null],
	["198.18.0.1", "reserved", null],
	["224.0.0.251", "reserved", null],
	["[::1]", "loopback", null],
	["localhost", "reserved", "reserved"],
	["", "reserved", "reserved"],
	["1.2.3", "reserved", "reserved"],
];

describe("checkResolvedAddress", () => {
	it.each(RESOLVED)("%s → %s (strict), %s (private allowed)", (address, strict, local) => {
		const s = checkResolvedAddress(address, STRICT);
		const l = checkResolvedAddress(address, LOCAL);
		expect(s.ok ? null : s.reason).toBe(strict);
		expect(l.ok ? null : l.reason).toBe(local);
	});

	it("names the refused address and why", () => {
		expect(checkResolvedAddress("10.0.0.7", STRICT)).toEqual({
			ok: false,
			reason: "private",
			detail: "private address 10.0.0.7 is not allowed",
		});
	});
});

describe("outboundPolicy", () => {
	it.each([
		[undefined, false],
		["", false],
		["false", false],
		["true", true],
		["TRUE", true],
		["1", true],
	])("OUTBOUND_ALLOW_PRIVATE=%s allows private targets: %s", (value, allowed) => {
		expect(outboundPolicy({ OUTBOUND_ALLOW_PRIVATE: value }).allowPrivate).toBe(allowed);
	});
});
