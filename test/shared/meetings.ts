/** The meeting record and fresh links, shared by every tier that talks to the public API. */

/** The meeting record as the API answers it: the client's type, generated from the Worker's /openapi.json. */
export type { Meeting } from "../../packages/client/src/types";

/** A fresh, random, valid Meet code, so tests never share a link. */
export function meetCode(): string {
	const bytes = crypto.getRandomValues(new Uint8Array(10));
	const letters = Array.from(bytes, (b) => String.fromCharCode(97 + (b % 26))).join("");
	return `${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7, 10)}`;
}
