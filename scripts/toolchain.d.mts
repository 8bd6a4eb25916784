export const root: string;
export function bin(name: string): string;
/** [Debian package, file it installs]. */
export type DebianPackage = [string, string];
export const BOT_HOST_PACKAGES: DebianPackage[];
export const TEST_PACKAGES: DebianPackage[];
export interface DebianPackagePlan {
	action: "none" | "install" | "advise" | "failed";
	missing: string[];
	command?: string;
}
export function debianPackagePlan(
	packages: DebianPackage[],
	context?: { exists?: (file: string) => boolean; root?: boolean; env?: Record<string, string | undefined> },
): DebianPackagePlan;
export function ensureDebianPackages(packages?: DebianPackage[]): DebianPackagePlan;
export function installNeeded(state: {
	hasWrangler: boolean;
	lockHash: string;
	installedHash: string | null;
	hiddenLockNewer: boolean;
}): boolean;
export function ensureNodeModules(): void;
export function ensureNode22(): void;
export function prepare(): void;
export function buildDashboard(): void;
/** Builds packages/client into its dist when missing or older than its sources (or always, with force). */
export function buildClient(options?: { force?: boolean }): void;
