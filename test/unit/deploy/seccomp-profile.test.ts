/**
 * The bot host's seccomp profile (deploy/bot-host-seccomp.json) and the manifest that names it.
 * Parsing only: no container runtime loads the profile here, so what is checked is its shape (the
 * runtime spec's, which containerd and CRI-O both read) and which syscalls it allows.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

const DEPLOY = path.resolve(import.meta.dirname, "../../../deploy");

interface SyscallRule {
	names: string[];
	action: string;
	args?: { index: number; value: number; valueTwo?: number; op: string }[];
	errnoRet?: number;
}
interface Profile {
	defaultAction: string;
	defaultErrnoRet?: number;
	architectures: string[];
	syscalls: SyscallRule[];
}

const profile = JSON.parse(readFileSync(path.join(DEPLOY, "bot-host-seccomp.json"), "utf8")) as Profile;
const rulesFor = (name: string) => profile.syscalls.filter((rule) => rule.names.includes(name));
/** Allowed whatever its arguments: one ALLOW rule without an argument filter. */
const allowedOutright = (name: string) => rulesFor(name).some((rule) => rule.action === "SCMP_ACT_ALLOW" && !rule.args?.length);

const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWPID = 0x20000000;
const CLONE_NEWNET = 0x40000000;

describe("the bot host's seccomp profile", () => {
	it("is the manifest's default, named where the kubelet looks for it", () => {
		const docs = parseAllDocuments(readFileSync(path.join(DEPLOY, "bot-host.yaml"), "utf8")).map((doc) => doc.toJS());
		const hosts = docs.find((doc) => doc?.kind === "StatefulSet");
		const container = hosts.spec.template.spec.containers.find((c: { name: string }) => c.name === "bot-host");
		expect(container.securityContext.seccompProfile).toEqual({ type: "Localhost", localhostProfile: "meetbot/bot-host-seccomp.json" });
		// The fallback is documented, not left in the manifest.
		const readme = readFileSync(path.join(DEPLOY, "README.md"), "utf8");
		expect(readme).toContain("seccompProfile: { type: Unconfined }");
		expect(readme).toContain("/var/lib/kubelet/seccomp/meetbot/bot-host-seccomp.json");
	});

	it("denies by default, in the runtime spec's format (no Docker-only includes or excludes a runtime would ignore)", () => {
		expect(profile.defaultAction).toBe("SCMP_ACT_ERRNO");
		expect(profile.architectures).toEqual(expect.arrayContaining(["SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"]));
		for (const rule of profile.syscalls) {
			expect(
				Object.keys(rule).filter((key) => !["names", "action", "args", "errnoRet"].includes(key)),
				rule.names.join(),
			).toEqual([]);
			expect(["SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO"]).toContain(rule.action);
			expect(rule.names.length).toBeGreaterThan(0);
			for (const arg of rule.args ?? []) expect(["SCMP_CMP_EQ", "SCMP_CMP_LT", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ"]).toContain(arg.op);
		}
	});

	it("lets Chromium make its namespace sandbox: clone with CLONE_NEWUSER (and PID, net), unshare, chroot", () => {
		for (const name of ["clone", "unshare", "chroot"]) expect(allowedOutright(name), name).toBe(true);
		// No other rule for clone narrows it back (RuntimeDefault's masks every CLONE_NEW* flag).
		const flags = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET;
		for (const rule of rulesFor("clone"))
			for (const arg of rule.args ?? []) expect(arg.op === "SCMP_CMP_MASKED_EQ" && (flags & arg.value) !== 0).toBe(false);
		// clone3 cannot be filtered by its flags: it answers ENOSYS, and the C library falls back to clone.
		expect(rulesFor("clone3")).toEqual([{ names: ["clone3"], action: "SCMP_ACT_ERRNO", errnoRet: 38 }]);
	});

	it("allows what Chromium and Node run on, and what its own sandbox sets up", () => {
		for (const name of [
			"read",
			"write",
			"mmap",
			"mprotect",
			"futex",
			"epoll_wait",
			"socketpair",
			"sendmsg",
			"execve",
			"wait4",
			"prctl",
			"seccomp",
			"setresuid",
			"capset",
			"memfd_create",
			"statfs",
		])
			expect(allowedOutright(name), name).toBe(true);
	});

	it("still refuses what RuntimeDefault refuses a container without capabilities", () => {
		for (const name of [
			"mount",
			"umount2",
			"setns",
			"pivot_root",
			"bpf",
			"init_module",
			"kexec_load",
			"open_by_handle_at",
			"reboot",
			"swapon",
		])
			expect(rulesFor(name), name).toEqual([]);
	});
});
