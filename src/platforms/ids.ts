/**
 * The platforms the service sends bots to, by their wire name. Adding one means adding it here,
 * its folder beside this file (link shapes, names, page facts) and its driver in bot-host/drivers.
 */
export const PLATFORMS = ["google_meet", "zoom", "teams"] as const;
export type Platform = (typeof PLATFORMS)[number];
