import { describe, expect, it } from "vitest";
import { shareWords, stayWords, talkWords, totalTalk } from "./people-words";
import { when } from "./ui/format";

describe("people words", () => {
	const joined = "2026-11-22T10:00:01.000Z";
	const left = "2026-11-22T10:00:40.000Z";

	it("says each stay's join and leave, and an unseen end by whether the meeting is still on", () => {
		expect(stayWords({ joined_at: joined, left_at: left }, true)).toBe(`joined ${when(joined)} · left ${when(left)}`);
		expect(stayWords({ joined_at: joined, left_at: null }, true)).toBe(`joined ${when(joined)} · still here`);
		expect(stayWords({ joined_at: joined, left_at: null }, false)).toBe(`joined ${when(joined)} · there until the end`);
		expect(stayWords({ joined_at: null, left_at: left }, false)).toBe(`there before the bot joined · left ${when(left)}`);
	});

	it("gives talk time as a clock and the share of all talk in whole percent", () => {
		expect(talkWords(65.4)).toBe("1:05");
		expect(talkWords(3725)).toBe("1:02:05");
		expect(talkWords(null)).toBe("unknown (name shared)");
		const total = totalTalk([{ talk_time_s: 30 }, { talk_time_s: 10 }, { talk_time_s: 0 }]);
		expect(total).toBe(40);
		expect(shareWords(30, total)).toBe("75%");
		expect(shareWords(0, total)).toBe("0%");
		expect(shareWords(null, total)).toBe("—");
		expect(shareWords(0, 0)).toBe("—");
	});
});
