import { MeetbotApiError } from "@meetbot/client";
import { useEffect, useState } from "preact/hooks";
import { api, refusalText } from "../api";
import { errorText } from "../ui";
import { applyStreamEvent, EMPTY_STREAM, isMeetingEnd, type MeetingStreamState, reconnectDelay } from "./meeting-stream";

export type StreamConnection = "connecting" | "live" | "reconnecting" | "stopped" | "ended";

/**
 * Follows a meeting's stream for as long as the page shows it. The stream is closed by the
 * server after a quiet spell, by an evicted room, or by the network: each time it reconnects
 * with the last id it saw (`Last-Event-ID`), so nothing is missed or shown twice. A 4xx
 * (`Meeting not found`) is final, and so is the close after `meeting-end`, the last event.
 */
export function useMeetingStream(meetingId: string): { stream: MeetingStreamState; connection: StreamConnection; error: string } {
	const [stream, setStream] = useState<MeetingStreamState>(EMPTY_STREAM);
	const [connection, setConnection] = useState<StreamConnection>("connecting");
	const [error, setError] = useState("");

	useEffect(() => {
		setStream(EMPTY_STREAM);
		setError("");
		setConnection("connecting");
		const controller = new AbortController();
		let lastEventId: string | undefined;
		const follow = async () => {
			let failures = 0;
			let ended = false;
			while (!controller.signal.aborted) {
				try {
					for await (const event of api.agent.meeting.stream({ meeting_id: meetingId }, { lastEventId, signal: controller.signal })) {
						if (event.id) lastEventId = event.id;
						if (isMeetingEnd(event)) ended = true;
						failures = 0;
						setConnection("live");
						setError("");
						setStream((s) => applyStreamEvent(s, event));
					}
				} catch (err) {
					if (controller.signal.aborted) return;
					if (err instanceof MeetbotApiError && err.status >= 400 && err.status < 500 && err.status !== 429) {
						setError(refusalText(err));
						setConnection("stopped");
						return;
					}
					setError(errorText(err));
				}
				if (controller.signal.aborted) return;
				if (ended) {
					setConnection("ended");
					return;
				}
				setConnection("reconnecting");
				await new Promise((resolve) => setTimeout(resolve, reconnectDelay(failures)));
				failures++;
			}
		};
		void follow();
		return () => controller.abort();
	}, [meetingId]);

	return { stream, connection, error };
}
