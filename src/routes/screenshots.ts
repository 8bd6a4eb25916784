import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { channelAttempt } from "../bot-channel/channel-token";
import { SCREENSHOT_MAX_BYTES, ScreenshotName } from "../bot-channel/help-report";
import { ApiError, notFound } from "../errors";
import { isLive, type MeetingStatus } from "../meetings/status-machine";
import { meetingRoom } from "../objects";
import { readCappedBytes } from "../outbound/capped-body";
import {
	checkScreenshotLink,
	imageTypeOf,
	meetingOwnerOf,
	SCREENSHOTS_PER_ATTEMPT,
	type ScreenshotRef,
	screenshotKey,
	typeOfName,
} from "../screenshots/screenshots";

/**
 * A bot's screenshots (docs/bot-channel.md#screenshots): it uploads them with its channel token
 * while its meeting is live, and the meeting's owner opens them only through a short-lived
 * link the gateway signed (docs/api.md#help-and-diagnostics). Neither route is ever public.
 */
export const screenshotRoutes = new Hono<AppEnv>();

screenshotRoutes.put("/internal/screenshots/:meeting_id/:name", async (c) => {
	// Any attempt's token of this meeting; the screenshot is kept under that attempt.
	const { meetingId, attempt } = await channelAttempt(
		c.env.SECRETS_KEY,
		c.req.param("meeting_id"),
		c.req.header("authorization"),
		"screenshot upload",
	);
	const name = c.req.param("name");
	if (!ScreenshotName.safeParse(name).success) {
		throw new ApiError(422, "Invalid screenshot name: 1-64 of a-z 0-9 _ - then .jpg or .png");
	}
	const declared = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
	if (declared !== typeOfName(name)) throw new ApiError(415, `A screenshot named ${name} is sent as ${typeOfName(name)}`);
	const length = Number(c.req.header("content-length"));
	if (!Number.isInteger(length) || length <= 0) throw new ApiError(411, "Content-Length is required");
	if (length > SCREENSHOT_MAX_BYTES) throw new ApiError(413, `Screenshot too large: at most ${SCREENSHOT_MAX_BYTES} bytes`);
	const meeting = await meetingOwnerOf(c.env, meetingId);
	if (!meeting) throw notFound("Meeting not found");
	if (!isLive(meeting.status as MeetingStatus)) throw new ApiError(409, "The meeting is not live: it takes no screenshots");

	const bytes = await boundedBody(c.req.raw, SCREENSHOT_MAX_BYTES);
	if (imageTypeOf(bytes) !== typeOfName(name))
		throw new ApiError(415, `Body is not a ${typeOfName(name) === "image/png" ? "PNG" : "JPEG"} image`);

	const ref: ScreenshotRef = { attempt, name };
	// A name uploaded again replaces its bytes (a retry); a new name counts against the attempt's bound,
	// reserved in the meeting's room so that uploads at the same time cannot pass it together.
	if (!(await meetingRoom(c.env, meetingId).reserveScreenshot(attempt, name))) {
		throw new ApiError(409, `This bot already stored ${SCREENSHOTS_PER_ATTEMPT} screenshots`);
	}
	await c.env.RECORDINGS.put(screenshotKey(meeting.user_id, meetingId, ref), bytes, { httpMetadata: { contentType: typeOfName(name) } });
	return c.json({ screenshot: name, attempt }, 201);
});

screenshotRoutes.get("/public/screenshots/:meeting_id/:attempt/:name", async (c) => {
	const meetingId = Number(c.req.param("meeting_id"));
	const attempt = Number(c.req.param("attempt"));
	const name = c.req.param("name");
	const valid = Number.isSafeInteger(meetingId) && Number.isSafeInteger(attempt) && attempt > 0 && ScreenshotName.safeParse(name).success;
	const ref: ScreenshotRef = { attempt, name };
	const check = valid
		? await checkScreenshotLink(c.env, meetingId, ref, c.req.query("expires"), c.req.query("signature"), c.get("clock").now())
		: "invalid";
	if (check === "expired") throw new ApiError(403, "Screenshot link expired");
	if (check === "invalid") throw new ApiError(403, "Invalid screenshot link");
	// The owner is read now: a deleted meeting's link leads nowhere, whatever its signature.
	const meeting = await meetingOwnerOf(c.env, meetingId);
	const object = meeting ? await c.env.RECORDINGS.get(screenshotKey(meeting.user_id, meetingId, ref)) : null;
	if (!object) throw notFound("Screenshot not found");
	return new Response(object.body, {
		headers: {
			"content-type": typeOfName(name),
			"content-length": String(object.size),
			"cache-control": "private, no-store",
			"x-content-type-options": "nosniff",
			"content-disposition": "inline",
			// Opened on its own, the image runs nothing and loads nothing.
			"content-security-policy": "default-src 'none'; img-src 'self'; sandbox",
		},
	});
});

/** The request body, refused with 413 past `max` bytes whatever its Content-Length said. */
async function boundedBody(request: Request, max: number): Promise<Uint8Array> {
	if (!request.body) throw new ApiError(411, "Content-Length is required");
	const bytes = await readCappedBytes(request, max);
	if (!bytes) throw new ApiError(413, `Screenshot too large: at most ${max} bytes`);
	return bytes;
}
