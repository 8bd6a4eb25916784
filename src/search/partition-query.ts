/**
 * What the search asks one partition and what it answers (src/search/partitions.ts asks, merges and
 * pages; the TranscriptIndex object in durable-objects/transcript-index/ answers). Declared on the
 * asking side, so the Worker's code imports nothing from the object's folder.
 */
export interface PartitionFilters {
	platform?: string;
	speaker?: string;
	/** ISO 8601 instants, compared by julianday. */
	from?: string;
	to?: string;
	/** Only this user's meetings: a workspace the owner is no longer a member of. */
	owner?: number;
}

export interface PartitionQuery {
	scope: string;
	match: string;
	filters: PartitionFilters;
	skip: number;
	take: number;
	/** Marked snippets for the rows answered (one partition: the page itself). */
	snippets: boolean;
}

export interface RankedHit {
	id: number;
	score: number;
	marked?: string;
}

export type PartitionAnswer = { state: "ready"; total: number; hits: RankedHit[] } | { state: "behind" };
