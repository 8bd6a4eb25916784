import { useEffect, useState } from "preact/hooks";

/**
 * Hash routes (`#/meetings/42`), so the dashboard's paths never collide with the API's,
 * which share the origin.
 */
export interface Route {
	/** `["meetings", "42"]` for `#/meetings/42`. */
	parts: string[];
	query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
	const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?");
	return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) };
}

export function navigate(path: string) {
	location.hash = `#${path.startsWith("/") ? path : `/${path}`}`;
}

export function useRoute(): Route {
	const [route, setRoute] = useState(() => parseRoute(location.hash));
	useEffect(() => {
		const onChange = () => setRoute(parseRoute(location.hash));
		addEventListener("hashchange", onChange);
		return () => removeEventListener("hashchange", onChange);
	}, []);
	return route;
}
