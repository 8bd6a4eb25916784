/**
 * A throwaway certificate for the sandbox, made at start with the system openssl (node:crypto
 * cannot issue X.509). Chromium is told to trust exactly this key through its SPKI hash
 * (`--ignore-certificate-errors-spki-list`), never every certificate.
 */
import { execFileSync } from "node:child_process";
import { createHash, createPublicKey } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const SANDBOX_HOSTS = [
	"meet.google.com",
	"zoom.us",
	"*.zoom.us",
	"teams.microsoft.com",
	"teams.live.com",
	"login.microsoftonline.com",
	"login.live.com",
	"accounts.google.com",
] as const;

export interface SandboxCertificate {
	key: string;
	cert: string;
	/** base64 SHA-256 of the SubjectPublicKeyInfo, the form Chromium's SPKI allow-list takes. */
	spkiHash: string;
}

export function makeSandboxCertificate(): SandboxCertificate {
	const dir = mkdtempSync(path.join(tmpdir(), "sandbox-cert-"));
	try {
		const keyPath = path.join(dir, "key.pem");
		const certPath = path.join(dir, "cert.pem");
		const altNames = [...SANDBOX_HOSTS.map((h) => `DNS:${h}`), "DNS:localhost", "IP:127.0.0.1"].join(",");
		execFileSync(
			"openssl",
			[
				"req",
				"-x509",
				"-newkey",
				"ec",
				"-pkeyopt",
				"ec_paramgen_curve:prime256v1",
				"-nodes",
				"-days",
				"30",
				"-subj",
				"/CN=meeting-platform-sandbox",
				"-addext",
				`subjectAltName=${altNames}`,
				"-keyout",
				keyPath,
				"-out",
				certPath,
			],
			{ stdio: "ignore" },
		);
		const key = readFileSync(keyPath, "utf8");
		const cert = readFileSync(certPath, "utf8");
		const spki = createPublicKey(cert).export({ type: "spki", format: "der" });
		return { key, cert, spkiHash: createHash("sha256").update(spki).digest("base64") };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** Chromium flags that send the platform hosts to the sandbox and trust only its key. */
export function sandboxChromiumFlags(port: number, spkiHash: string): string[] {
	const rules = SANDBOX_HOSTS.map((h) => `MAP ${h} 127.0.0.1:${port}`).join(", ");
	return [
		`--host-resolver-rules=${rules}`,
		`--ignore-certificate-errors-spki-list=${spkiHash}`,
		// The sandbox's WebRTC loopback connects over host candidates; mDNS names would not resolve here.
		"--disable-features=WebRtcHideLocalIpsWithMdns",
	];
}
