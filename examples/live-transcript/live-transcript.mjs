#!/usr/bin/env node
/**
 * Sends a bot to a meeting and prints its transcript live, line by line, until the meeting ends
 * (examples/live-transcript/README.md). Plain JavaScript on `@meetbot/client` as npm installs it;
 * runs on Node 20 (with `ws` installed) and Node 22.
 *
 *   MEETBOT_URL=https://meetbot.example.com MEETBOT_API_KEY=… node live-transcript.mjs google_meet abc-defg-hij
 *
 * Exit codes: 0 when the meeting ended, 1 on a failed API call, 2 when the live feed cannot run.
 */
import { createClient, MeetbotApiError } from "@meetbot/client";

const [platform, nativeMeetingId, botName = "Live transcript"] = process.argv.slice(2);
const { MEETBOT_URL: baseUrl, MEETBOT_API_KEY: apiKey } = process.env;
if (!platform || !nativeMeetingId || !baseUrl || !apiKey) {
	console.error("usage: MEETBOT_URL=… MEETBOT_API_KEY=… node live-transcript.mjs <platform> <native meeting id> [bot name]");
	process.exit(64);
}

const meetbot = createClient({ baseUrl, apiKey });
const ENDED = new Set(["completed", "failed"]);

try {
	const me = await meetbot.auth.me();
	console.log(`signed in as ${me.email} (user ${me.user_id})`);
	const meeting = await meetbot.bots.send({ platform, native_meeting_id: nativeMeetingId, bot_name: botName });
	console.log(`bot sent to ${platform} ${nativeMeetingId} (meeting ${meeting.id})`);
} catch (err) {
	// The API's own sentence (never the key): `GET /auth/me: 401 …`.
	console.error(err instanceof MeetbotApiError ? err.message : String(err));
	process.exit(1);
}

// A segment may be sent again (corrected); each is printed once, when it is first confirmed.
const printed = new Set();
const feed = meetbot.live.subscribe([{ platform, native_id: nativeMeetingId }], {
	onSubscribed: (_frame, { connection }) =>
		console.log(connection === 1 ? "live: subscribed" : `live: subscribed again (connection ${connection})`),
	onFrame(frame) {
		if (frame.type === "transcript") {
			for (const segment of frame.confirmed) {
				if (printed.has(segment.segment_id)) continue;
				printed.add(segment.segment_id);
				console.log(`[${segment.speaker}] ${segment.text}`);
			}
		} else if (frame.type === "meeting.status") {
			console.log(`status: ${frame.payload.status}`);
			if (ENDED.has(frame.payload.status)) feed.close();
		}
	},
	onError(error) {
		// Not fatal: the feed reconnects by itself. Fatal: it has stopped (a refused key, or no WebSocket on Node 20 without `ws`).
		if (!error.fatal) return console.error(`live: ${error.message} (retrying)`);
		console.error(`live feed stopped: ${error.message}`);
		process.exitCode = 2;
	},
});

// Ctrl-C: call the bot back before leaving.
process.once("SIGINT", async () => {
	feed.close();
	await meetbot.bots.stop(platform, nativeMeetingId).catch(() => undefined);
	console.log("bot stopped");
});
