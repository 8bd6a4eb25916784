/** The HTML frame shared by the sandbox platform pages: meeting id, runtime, skin script. */
import type { UiLanguage } from "../../../src/platforms/page-facts.ts";

export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the platform knows before anyone asks to join: whether the link points at a meeting at all. */
export interface MeetingPageState {
	/** The platform's not-found screen instead of the pre-join one ("Check your meeting code", Zoom 3,001). */
	notFound?: boolean;
	/**
	 * A screen in place of the whole page until the sandbox says it is gone (scenario `interstitial`):
	 * one no driver knows (`policy`), or the platform's bot check (`bot_check`).
	 */
	interstitial?: "policy" | "bot_check" | null;
	/** The join button renamed until the sandbox says the layout is restored (scenario `layout_changed`); the skin's `applyLayout` draws it. */
	layoutChanged?: boolean;
	/** Guests must sign in (scenario `sign_in_required`) and the page says so itself rather than redirecting (Teams' org policy). */
	signInRequired?: boolean;
	/** The page's UI language, its generation and the traps it sets (scenario `ui_language`, `dom_version`, `traps`). */
	language?: UiLanguage;
	dom?: "newer" | "older";
	traps?: readonly string[];
}

/** Each platform's bot check, in its own words. */
const BOT_CHECK: Record<string, string> = {
	// Attendee `look_for_blocked_element` (Google blocking the browser).
	google_meet: "You can't join this video call",
	zoom: "We detected you may be a bot",
	teams: "Verify you're a real person",
};

/**
 * The screen a platform shows instead of its lobby when the browser that asked to join looks
 * automated (runtime.js `automationSignals`, scenario `bot_detection`). Only Meet's pages check:
 * "You can't join this video call" is Attendee's text for it
 * (bots/google_meet_bot_adapter/google_meet_ui_methods.py, look_for_blocked_element).
 */
const AUTOMATION_BLOCK: Record<string, string> = {
	google_meet: "You can't join this video call",
};

/** Served in place of the page, so the pre-join is not visible at all (not merely covered) while it shows. */
function interstitial(kind: "policy" | "bot_check", platform: string): string {
	const [title, text, button] =
		kind === "bot_check"
			? [BOT_CHECK[platform] ?? "", "Complete the check to continue.", "Start the check"]
			: ["Before you join", "This organisation asks every guest to review its meeting policy first.", "Review the policy"];
	return `<div id="sandbox-interstitial" role="dialog" aria-label="${title}">
<h1>${title}</h1><p>${text}</p><button id="sandbox-interstitial-review">${button}</button></div>`;
}
const INTERSTITIAL_CSS =
	"html[data-interstitial] body>:not(#sandbox-interstitial){display:none!important}html[data-blocked] body>:not(#sandbox-blocked){display:none!important}";

export function pageShell(
	p: { platform: string; meetingId: string; title: string; css: string; body: string; skin: string } & MeetingPageState,
): string {
	return `<!doctype html>
<html lang="${p.language ?? "en"}" data-dom="${p.dom ?? "newer"}" data-traps="${escapeHtml((p.traps ?? []).join(" "))}" data-platform="${p.platform}" data-meeting-id="${escapeHtml(p.meetingId)}"${AUTOMATION_BLOCK[p.platform] ? ` data-automation-block="${escapeHtml(AUTOMATION_BLOCK[p.platform] ?? "")}"` : ""}${p.notFound ? ' data-meeting-state="not_found"' : ""}${p.interstitial ? " data-interstitial" : ""}${p.layoutChanged ? " data-layout-changed" : ""}>
<head><meta charset="utf-8"><title>${escapeHtml(p.title)}</title>
<style>body{font-family:sans-serif;margin:0}[hidden]{display:none!important}video{width:160px;height:90px;background:#222}button,[role=button],[role=switch],[role=menuitem]{display:inline-block;min-width:28px;min-height:24px;border:1px solid #888;cursor:pointer}${INTERSTITIAL_CSS}${p.css}</style>
</head>
<body>
${p.interstitial ? interstitial(p.interstitial, p.platform) : ""}
${p.body}
<script src="/__sandbox/runtime.js"></script>
<script>
"use strict";
const $ = (s, r = document) => r.querySelector(s);
const el = (tag, attrs = {}, text) => {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
	if (text !== undefined) e.textContent = text;
	return e;
};
const scenarioReady = fetch("/__sandbox/meetings/" + encodeURIComponent(document.documentElement.dataset.meetingId))
	.then((r) => r.json())
	.then((b) => b.scenario);
// A modal pop-up over the whole page: pointer clicks elsewhere land on the overlay, as on the real sites.
const popup = ({ text, button, buttonAttrs = {}, onClose }) => {
	const overlay = el("div", { class: "sandbox-popup", role: "dialog", style: "position:fixed;inset:0;z-index:100;background:rgba(0,0,0,.55)" });
	const box = el("div", { style: "margin:20vh auto;width:420px;background:#fff;padding:16px" });
	const ok = el("button", buttonAttrs, button);
	box.append(el("p", {}, text), ok);
	overlay.append(box);
	ok.addEventListener("click", () => { overlay.remove(); onClose?.(); });
	document.body.append(overlay);
};
${p.skin}
// The interstitial and the changed layout last until the sandbox says they are gone (a timer, a control call).
(() => {
	const root = document.documentElement;
	if (typeof applyLayout === "function") applyLayout(root.hasAttribute("data-layout-changed"));
	if (!root.hasAttribute("data-interstitial") && !root.hasAttribute("data-layout-changed")) return;
	const screenUrl = "/__sandbox/meetings/" + encodeURIComponent(root.dataset.meetingId) + "/screen";
	const poll = setInterval(async () => {
		const screen = await fetch(screenUrl).then((r) => r.json()).catch(() => null);
		if (!screen) return;
		if (!screen.interstitial && root.hasAttribute("data-interstitial")) {
			root.removeAttribute("data-interstitial");
			$("#sandbox-interstitial")?.remove();
		}
		if (!screen.layout_changed && root.hasAttribute("data-layout-changed")) {
			root.removeAttribute("data-layout-changed");
			if (typeof applyLayout === "function") applyLayout(false);
		}
		if (!root.hasAttribute("data-interstitial") && !root.hasAttribute("data-layout-changed")) clearInterval(poll);
	}, 250);
	// A person in front of the page can review the policy: the sandbox hears it as a clear.
	$("#sandbox-interstitial-review")?.addEventListener("click", () =>
		fetch("/__sandbox/meetings/" + encodeURIComponent(root.dataset.meetingId) + "/actions", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ action: "clear_interstitial" }),
		}),
	);
})();
</script>
</body></html>`;
}
