/** Everything an IpGuard keeps in its storage (test/worker/durable-objects/storage-maps.test.ts). */
export const IP_GUARD_STORAGE = {
	keys: {
		/** index.ts: when the IP's ban ends (epoch ms); the request window itself is kept in memory only. */
		bannedUntil: "bannedUntil",
	},
	tables: {},
} as const;
