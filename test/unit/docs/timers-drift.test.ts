import { describe, expect, it } from "vitest";
import statusDoc from "../../../docs/status-machine.md?raw";
import { ROOM_TIMERS } from "../../../durable-objects/meeting-room/storage";
import { STREAM_TIMERS } from "../../../durable-objects/meeting-stream/storage";
import { tableRows } from "./markdown-table";

const names = (table: string) => tableRows(statusDoc, table).map(([timer]) => timer?.replace(/`/g, ""));

describe("docs/status-machine.md#timers-that-move-a-meeting", () => {
	it("lists the room's timers exactly as ROOM_TIMERS names them", () => {
		expect(names("room-timers")).toEqual([...ROOM_TIMERS]);
	});

	it("lists the MeetingStream's timers exactly as STREAM_TIMERS names them", () => {
		expect(names("stream-timers")).toEqual([...STREAM_TIMERS]);
	});
});
