/** When a bot's Chromium keeps its sandbox, and the launch flags that follow. */
import { describe, expect, it } from "vitest";
import { decideSandbox, parseSandboxSetting, type SandboxHost, sandboxFlags } from "../bot/chromium-sandbox.ts";

const host = (fields: Partial<SandboxHost>): SandboxHost => ({ root: false, userNamespaces: false, setuidHelper: false, ...fields });

describe("the Chromium sandbox decision", () => {
	it("keeps the sandbox for a non-root host with user namespaces or a setuid helper", () => {
		expect(decideSandbox("auto", host({ userNamespaces: true }))).toEqual({
			sandbox: true,
			why: "unprivileged user namespaces are available",
		});
		expect(decideSandbox("auto", host({ setuidHelper: true }))).toEqual({
			sandbox: true,
			why: "a setuid chrome-sandbox helper is installed",
		});
	});

	it("turns it off as root, and where the kernel offers neither, saying why", () => {
		expect(decideSandbox("auto", host({ root: true, setuidHelper: true }))).toEqual({
			sandbox: false,
			why: "running as root, where Chromium refuses to start sandboxed",
		});
		expect(decideSandbox("auto", host({}))).toEqual({
			sandbox: false,
			why: "neither unprivileged user namespaces nor a setuid chrome-sandbox helper is available",
		});
	});

	it("follows BOT_CHROMIUM_SANDBOX=on|off whatever the host", () => {
		expect(decideSandbox("on", host({ root: true }))).toEqual({ sandbox: true, why: "BOT_CHROMIUM_SANDBOX=on" });
		expect(decideSandbox("off", host({ userNamespaces: true }))).toEqual({ sandbox: false, why: "BOT_CHROMIUM_SANDBOX=off" });
	});

	it("reads the setting: unset is auto, anything but on/off/auto is refused", () => {
		expect(parseSandboxSetting(undefined)).toBe("auto");
		expect(parseSandboxSetting("")).toBe("auto");
		expect(parseSandboxSetting(" OFF ")).toBe("off");
		expect(() => parseSandboxSetting("yes")).toThrow("BOT_CHROMIUM_SANDBOX must be on, off or auto");
	});

	it("drops --single-process and --no-zygote with the sandbox on, which they would undo", () => {
		expect(sandboxFlags(true)).toEqual([]);
		expect(sandboxFlags(false)).toEqual(["--no-sandbox", "--single-process", "--no-zygote"]);
	});
});
