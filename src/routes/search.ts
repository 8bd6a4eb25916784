import { createRoute } from "@hono/zod-openapi";
import { SearchQuery, SearchResults, searchTranscripts } from "../search/transcript-search";
import { jsonResponse, routeModule } from "./openapi-app";

/** Search across every transcript the caller may read (docs/api.md#search). Mounted before the transcript routes. */
export const searchRoutes = routeModule();

searchRoutes.openapi(
	createRoute({
		method: "get",
		path: "/transcripts/search",
		request: { query: SearchQuery },
		responses: {
			200: jsonResponse(
				SearchResults,
				"Segments of the caller's meetings (and of meetings bound to a workspace they are a member of) matching every term, best first (bm25)",
			),
		},
	}),
	async (c) => c.json(await searchTranscripts(c.env, c.get("identity"), c.req.valid("query")), 200),
);
