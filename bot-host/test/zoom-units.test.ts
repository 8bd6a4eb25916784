/**
 * The Zoom pieces that need no browser: the join link (Vexa's rewrite to app.zoom.us, Attendee's
 * zoom.com and registrant token), the wait for a host who has not started, and its limit.
 */
import { describe, expect, it } from "vitest";
import { HostWait } from "../bot/joining.ts";
import { autoLeave, leaveLimits } from "../bot/limits.ts";
import { zoom } from "../drivers/zoom.ts";

describe("the Zoom join link", () => {
	it.each([
		["https://us05web.zoom.us/j/81234567890?pwd=abc&tk=TOKEN.1", null, "https://app.zoom.us/wc/81234567890/join?pwd=abc&tk=TOKEN.1"],
		["https://zoom.com/j/81234567890?pwd=abc", null, "https://app.zoom.us/wc/81234567890/join?pwd=abc"],
		["https://us06web.zoom.com/w/91234567890?tk=reg", "s3cret", "https://app.zoom.us/wc/91234567890/join?pwd=s3cret&tk=reg"],
		["https://zoom.us/wc/join/81234567890?pwd=abc", null, "https://app.zoom.us/wc/81234567890/join?pwd=abc"],
		["https://app.zoom.us/wc/81234567890/join", "p", "https://app.zoom.us/wc/81234567890/join?pwd=p"],
		// A Personal Link name redirects by itself; a zoom.com one is the same link on zoom.us.
		["https://acme.zoom.com/my/jane.doe?pwd=x", null, "https://acme.zoom.us/my/jane.doe?pwd=x"],
		// Events and white-label portals are opened as given (Vexa): a person may have to get past them.
		["https://events.zoom.us/ev/AbCdEf", "x", "https://events.zoom.us/ev/AbCdEf"],
		[
			"https://zoom-lfx.platform.linuxfoundation.org/meeting/96088138284?password=x",
			null,
			"https://zoom-lfx.platform.linuxfoundation.org/meeting/96088138284?password=x",
		],
	])("opens %s (passcode %s) as %s", (link, passcode, opened) => {
		expect(zoom.joinUrl(link, passcode)).toBe(opened);
	});
});

describe("the wait for the host", () => {
	it("starts at the first sight of the page that says so, ends when the join screen, a lobby or the call shows", () => {
		const wait = new HostWait({ recheckMs: 15_000, limitMs: 10 * 60_000 });
		expect(wait.observe("prejoin", 0)).toBeNull();
		expect(wait.waitedMs(0)).toBeNull();
		expect(wait.observe("waiting_for_host", 1_000)).toBe("started");
		expect(wait.observe("waiting_for_host", 2_000)).toBeNull();
		// A moment of a page it does not know (a reload) does not end the wait.
		expect(wait.observe("unknown", 3_000)).toBeNull();
		expect(wait.waitedMs(61_000)).toBe(60_000);
		expect(wait.observe("prejoin", 62_000)).toBe("over");
		expect(wait.waitedMs(62_000)).toBeNull();
		expect(wait.reason).toBe("waiting for the host to start the meeting (re-checking every 15 s, up to 10 min)");
	});

	it("re-opens the page every recheck, and never for a page that updates itself", () => {
		const wait = new HostWait({ recheckMs: 15_000, limitMs: 90_000 });
		wait.observe("waiting_for_host", 0);
		expect(wait.reopenDue(14_999)).toBe(false);
		expect(wait.reopenDue(15_000)).toBe(true);
		expect(wait.reopenDue(20_000)).toBe(false);
		expect(wait.reopenDue(30_000)).toBe(true);
		const live = new HostWait({ recheckMs: null, limitMs: 90_000 });
		live.observe("waiting_for_host", 0);
		expect(live.reopenDue(60_000)).toBe(false);
		expect(live.reason).toBe("waiting for the host to start the meeting (up to 90 s)");
	});

	it("gives up after max_wait_for_host (10 min unless set) as a join failure a new bot may retry", () => {
		expect(leaveLimits({}).max_wait_for_host).toBe(10 * 60_000);
		const at = (waitingForHostMs: number | null) => ({ sinceStartMs: 0, inLobbyMs: null, waitingForHostMs, call: null });
		expect(autoLeave(at(10 * 60_000 - 1), {})).toBeNull();
		expect(autoLeave(at(null), { max_wait_for_host: 1 })).toBeNull();
		expect(autoLeave(at(10 * 60_000), {})).toEqual({
			status: "failed",
			completion_reason: "join_failure",
			reason:
				"the host did not start the meeting within 10 min (max_wait_for_host): " +
				"the page kept saying it has not started, as it also does for a link to no meeting",
			leave: false,
		});
		expect(autoLeave(at(1_500), { max_wait_for_host: 1_500 })?.reason).toMatch(/^the host did not start the meeting within 1.5 s /);
	});
});
