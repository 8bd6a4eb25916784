/**
 * The traps a sandbox page can set for the bot (scenario `traps`), by platform: each is
 * something a real page does that has broken bots (/work/shared/reviews/platform-fidelity.md §5).
 * Each platform's page reads its own from `document.documentElement.dataset.traps`.
 */
/** Google Meet (pages/google-meet.ts; docs/sandbox.md#google-meet says what each does and whose notes it follows). */
export const MEET_TRAPS = [
	"rotated_caption_classes",
	"effects_phantom_span",
	"lobby_host_brings_you_in",
	"lobby_waiting_room",
	"lobby_waiting_for_host",
	"join_enabled_late",
	"overlay_over_join",
	"slow_device_toggles",
	"auto_hiding_toolbar",
	"gemini_consent",
	"chat_pin_button",
	"junk_tiles",
	"self_view_named_you",
	"denied_as_left",
	"not_found_expired",
	"not_found_code_doesnt_work",
	"problem_connecting",
] as const;
export const ZOOM_TRAPS = [] as const;
/** Teams (pages/teams.ts; docs/sandbox.md#teams-web says what each does and whose note it follows). */
export const TEAMS_TRAPS = [
	"launcher_variant",
	"join_overlay",
	"join_enabled_late",
	"av_prompt_late",
	"couldnt_connect",
	"org_sign_in",
	"organizer_view",
	"unnamed_stream",
	"idle_chat",
	"encryption_error",
] as const;

export const SANDBOX_TRAPS: readonly string[] = [...MEET_TRAPS, ...ZOOM_TRAPS, ...TEAMS_TRAPS];
