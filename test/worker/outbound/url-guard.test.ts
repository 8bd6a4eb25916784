import { describe, expect, it } from "vitest";
import { checkOutboundUrl, type OutboundRefusal, outboundPolicy } from "../../../src/outbound/url-guard";

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
	["http://[fd00:ec2::254]/", "private", null],
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

	it("explains a refusal without echoing credentials", () => {
		const result = checkOutboundUrl("https://user:hunter2@hooks.example.com/", STRICT);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.detail).not.toContain("hunter2");
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
