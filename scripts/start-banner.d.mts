/** Sandbox meeting links per platform: [platform name, meeting id, link]. */
export const SANDBOX_LINKS: ReadonlyArray<readonly [string, string, string]>;
export function startBanner(options: Record<string, unknown>): string[];
