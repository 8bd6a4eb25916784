import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { call, json, userWithKey } from "../support";
import { calendar, connect, newFeed, serveFeed, sync, utcIn, vevent } from "./feeds";
import { plans } from "./signed-in";

/** An ICS event on a Meet link, organised by `organizer`, with these ATTENDEE lines. */
function invite(uid: string, code: string, hours: number, organizer: string, attendees: string[]) {
	return vevent({
		UID: uid,
		DTSTART: utcIn(hours),
		DTEND: utcIn(hours + 1),
		SUMMARY: `Meeting ${code}`,
		LOCATION: `https://meet.google.com/${code}`,
		"ORGANIZER;CN=Organiser": `mailto:${organizer}`,
		...Object.fromEntries(attendees.map((a, i) => [`ATTENDEE;CN=Person ${i};ROLE=REQ-PARTICIPANT`, `mailto:${a}`])),
	});
}

describe("auto-join rules on ICS calendars", () => {
	it("plans only meetings the account's own address organises, and those with at least N attendees (rooms not counted)", async () => {
		const { user, headers } = await userWithKey("bot");
		const feed = newFeed();
		// Connected before its feed is served, so its sync at once plans nothing before the rules are set.
		const connection = await connect(headers, feed);
		const [mine, theirs, big, roomed] = [meetCode(), meetCode(), meetCode(), meetCode()];
		// Organised by the account (its address in other case), with only a room and a resource invited: one person.
		const room = vevent({ UID: "room", DTSTART: utcIn(5), DTEND: utcIn(6), LOCATION: `https://meet.google.com/${roomed}` }).replace(
			"END:VEVENT",
			`ORGANIZER:mailto:${user.email.toUpperCase()}\nATTENDEE;CUTYPE=ROOM;CN=Room 1:mailto:room@example.com\nATTENDEE;CUTYPE=RESOURCE:mailto:beamer@example.com\nEND:VEVENT`,
		);
		await serveFeed(
			feed,
			calendar(
				invite("mine", mine, 2, user.email, [user.email, "a@example.com"]),
				invite("theirs", theirs, 3, "boss@example.com", [user.email, "a@example.com", "b@example.com"]),
				invite("big", big, 4, user.email, [user.email, "a@example.com", "b@example.com", "c@example.com"]),
				room,
			),
		);
		const patched = await call("PATCH", `/user/calendars/${connection.id}`, {
			headers,
			json: { auto_join_rules: { organizer_only: true, min_attendees: 3 } },
		});
		expect(await json(patched)).toMatchObject({ kind: "ics", account: null, auto_join_rules: { organizer_only: true, min_attendees: 3 } });
		expect((await sync(headers, connection.id)).counts.created).toBe(1);
		expect((await plans(headers)).map((m) => m.native_meeting_id)).toEqual([big]);

		await call("PATCH", `/user/calendars/${connection.id}`, { headers, json: { auto_join_rules: { min_attendees: null } } });
		expect((await sync(headers, connection.id)).counts.created).toBe(2);
		expect((await plans(headers)).map((m) => m.native_meeting_id).sort()).toEqual([mine, big, roomed].sort());

		await call("PATCH", `/user/calendars/${connection.id}`, {
			headers,
			json: { auto_join_rules: { organizer_only: false, min_attendees: 2 } },
		});
		const stamp = await sync(headers, connection.id);
		expect(stamp.counts).toEqual({ created: 1, updated: 0, cancelled: 1 });
		expect((await plans(headers)).map((m) => m.native_meeting_id).sort()).toEqual([mine, theirs, big].sort());
	});
});
