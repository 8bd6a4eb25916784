// biome-ignore-all lint/correctness/noUnusedVariables: its declarations are used by the other runtime parts, in the one served scope
// A part of the sandbox pages' runtime (runtime.js), served with the other parts as one script in one scope
// (sandbox/server.ts RUNTIME_PARTS): its top level only declares, and what it uses from the others is read when called.

// What a page can see of a scripted browser, for the pages that check who asks to join (Meet:
// Sandbox.ask's `trigger`). A DevTools click (puppeteer's element.click()) brings the pointer to
// the button in one mousemove at the point of the click; a hand, and an X pointer driven along a
// path (bot-host/bot/os-input.ts), arrive through many positions (measured in
// bot-host/test/os-input.test.ts). The way to a press is every raw position (coalesced ones
// included) since the previous release, within the last TRAIL_MS.
const TRAIL_MS = 3000;
const MIN_PATH = 5;
const trail = [];
let pressPath = null;
let releasedAt = Number.NEGATIVE_INFINITY;
const distinct = (points) => new Set(points.map((p) => `${p.x},${p.y}`)).size;
addEventListener(
	"pointermove",
	(e) => {
		if (!e.isTrusted) return;
		const now = performance.now();
		for (const c of e.getCoalescedEvents?.() ?? [e]) trail.push({ x: c.clientX, y: c.clientY, at: now });
		while (trail.length && now - trail[0].at > TRAIL_MS) trail.shift();
	},
	{ capture: true, passive: true },
);
addEventListener(
	"pointerdown",
	(e) => {
		const now = performance.now();
		const since = Math.max(now - TRAIL_MS, releasedAt);
		if (e.isTrusted) pressPath = { at: now, positions: distinct(trail.filter((p) => p.at > since)) };
	},
	{ capture: true, passive: true },
);
addEventListener("pointerup", () => (releasedAt = performance.now()), { capture: true, passive: true });
const automationSignals = (trigger) => {
	const signals = [];
	if (navigator.webdriver) signals.push("navigator.webdriver is true");
	if (/HeadlessChrome/.test(navigator.userAgent)) signals.push("a HeadlessChrome user agent");
	if (!trigger.isTrusted) signals.push("a scripted click");
	else if (trigger.detail > 0) {
		// A pointer click (a key press on the button has detail 0 and no pointer to judge).
		const positions = pressPath && performance.now() - pressPath.at < TRAIL_MS ? pressPath.positions : 0;
		if (positions < MIN_PATH) signals.push(`the pointer came to the button without a path (${positions} position(s) on its way)`);
	}
	return signals;
};

// The platform's suspected-automation screen, in place of the whole page (shell.ts names its title).
const showBlocked = () => {
	const screen = document.createElement("div");
	screen.id = "sandbox-blocked";
	screen.setAttribute("role", "main");
	const title = document.createElement("h1");
	title.textContent = root.dataset.automationBlock ?? "";
	const back = document.createElement("button");
	back.textContent = "Return to home screen";
	screen.append(title, back);
	document.body.prepend(screen);
	root.setAttribute("data-blocked", "");
};
