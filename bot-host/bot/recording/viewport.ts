/**
 * Where the meeting page lies on the bot's screen: the headed window (browser.ts) sits at the
 * screen's corner with its tab strip and toolbar above the page. Read through the DevTools
 * protocol (the window's bounds, the page's layout viewport), never from the page's own script,
 * which the platform controls.
 */
import type { Page } from "puppeteer-core";

export interface ScreenRect {
	x: number;
	y: number;
	width: number;
	height: number;
}

/** The page's rectangle on a `screen`-sized display, clipped to it. */
export async function viewportOnScreen(page: Page, screen: { width: number; height: number }): Promise<ScreenRect> {
	const cdp = await page.createCDPSession();
	try {
		const { bounds } = await cdp.send("Browser.getWindowForTarget");
		const { cssLayoutViewport } = await cdp.send("Page.getLayoutMetrics");
		const left = bounds.left ?? 0;
		const top = bounds.top ?? 0;
		const outerWidth = bounds.width ?? screen.width;
		const outerHeight = bounds.height ?? screen.height;
		// The page fills the window's bottom; what is left above it is the browser's own chrome.
		const x = Math.max(0, left + Math.floor((outerWidth - cssLayoutViewport.clientWidth) / 2));
		const y = Math.max(0, top + outerHeight - cssLayoutViewport.clientHeight);
		return {
			x,
			y,
			width: Math.max(2, Math.min(cssLayoutViewport.clientWidth, screen.width - x)),
			height: Math.max(2, Math.min(cssLayoutViewport.clientHeight, screen.height - y)),
		};
	} finally {
		await cdp.detach().catch(() => {});
	}
}
