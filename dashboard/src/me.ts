import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Me } from "./types";

/** The signed-in account and its key's scopes (GET /auth/me), for the pages that act. */
export const MeContext = createContext<Me | null>(null);

/**
 * Whether the key may act on meetings (send, stop, speak, edit plans): those routes need the
 * `bot` scope; a `tx` key reads only (docs/api.md#route-table).
 */
export function useCanAct(): boolean {
	return useContext(MeContext)?.scopes.includes("bot") ?? false;
}
