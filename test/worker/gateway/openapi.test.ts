import { describe, expect, it } from "vitest";
import { BotStatusList, MeetingList, MeetingRecord, Transcript } from "../../../src/routes/meeting-schemas";
import { meetCode } from "../../shared/meetings";
import { liveMeeting, segment } from "../meetings/helpers";
import { call, expectDocumented, json, userWithKey } from "../support";

interface SchemaObject {
	$ref?: string;
	type?: string | string[];
	properties?: Record<string, SchemaObject>;
	items?: SchemaObject;
	anyOf?: SchemaObject[];
	oneOf?: SchemaObject[];
	allOf?: SchemaObject[];
	additionalProperties?: boolean | SchemaObject;
}
interface OpenApiDoc {
	openapi: string;
	info: { title: string; version: string; description?: string; "x-api-contract"?: unknown };
	paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: SchemaObject }> }> }>>;
	components?: { schemas?: Record<string, SchemaObject> };
}

async function document(): Promise<OpenApiDoc> {
	const res = await call("GET", "/openapi.json");
	expect(res.status).toBe(200);
	return json<OpenApiDoc>(res);
}

function resolve(doc: OpenApiDoc, schema: SchemaObject): SchemaObject {
	if (!schema.$ref) return schema;
	const name = schema.$ref.replace("#/components/schemas/", "");
	const target = doc.components?.schemas?.[name];
	if (!target) throw new Error(`dangling ${schema.$ref}`);
	return resolve(doc, target);
}

/**
 * The places in a JSON body schema that say nothing about their fields: objects with an empty
 * property list that are not declared closed (what `z.object({}).passthrough()` documents).
 * Open maps the contract declares as such (`data`, `labels`) are records: no property list,
 * only a value schema.
 */
function emptyObjects(doc: OpenApiDoc, raw: SchemaObject, at: string, seen = new Set<string>()): string[] {
	if (raw.$ref) {
		if (seen.has(raw.$ref)) return [];
		seen.add(raw.$ref);
	}
	const schema = resolve(doc, raw);
	const alternatives = schema.anyOf ?? schema.oneOf ?? schema.allOf;
	if (alternatives) return alternatives.flatMap((s) => emptyObjects(doc, s, at, seen));
	if (schema.items) return emptyObjects(doc, schema.items, `${at}[]`, seen);
	const isObject = schema.type === "object" || (Array.isArray(schema.type) && schema.type.includes("object"));
	if (!isObject) return [];
	const properties = Object.entries(schema.properties ?? {});
	if (properties.length > 0) return properties.flatMap(([name, s]) => emptyObjects(doc, s, `${at}.${name}`, seen));
	const closed = schema.additionalProperties === false;
	const openMap = schema.properties === undefined && schema.additionalProperties !== undefined;
	return closed || openMap ? [] : [at];
}

describe("/openapi.json", () => {
	it("states the api.v1 contract and its version", async () => {
		const doc = await document();
		expect(doc.info["x-api-contract"]).toEqual({ name: "api.v1", version: "1.5.0" });
		expect(`${doc.info.title} ${doc.info.description}`).toContain("api.v1");
	});

	it("documents the fields of every JSON response, with no empty passthrough objects", async () => {
		const doc = await document();
		const empty: string[] = [];
		let documented = 0;
		for (const [path, operations] of Object.entries(doc.paths)) {
			for (const [method, operation] of Object.entries(operations)) {
				for (const [status, response] of Object.entries(operation.responses)) {
					const schema = response.content?.["application/json"]?.schema;
					if (!schema) continue;
					documented += 1;
					empty.push(...emptyObjects(doc, schema, `${method.toUpperCase()} ${path} ${status}`));
				}
			}
		}
		expect(documented).toBeGreaterThan(40);
		expect(empty).toEqual([]);
	});
});

describe("responses match the schemas /openapi.json documents", () => {
	it("for the meeting record, the meeting list, running bots and the transcript", async () => {
		const { headers } = await userWithKey();
		await expectDocumented(
			MeetingRecord,
			await call("POST", "/meetings", {
				headers,
				json: { meeting_url: `https://meet.google.com/${meetCode()}`, title: "Planning", scheduled_at: "2030-01-01T10:00:00Z" },
			}),
			201,
		);
		const live = await liveMeeting(headers);
		await live.bot.send({ type: "segment", segment: segment({ text: "Documented." }) });
		await expectDocumented(MeetingRecord, await call("GET", `/meetings/${live.meeting.id}`, { headers }));
		const { meetings } = await expectDocumented(MeetingList, await call("GET", "/meetings", { headers }));
		expect(meetings).toHaveLength(2);
		const { running_bots } = await expectDocumented(BotStatusList, await call("GET", "/bots/status", { headers }));
		expect(running_bots).toHaveLength(1);
		const transcript = await expectDocumented(Transcript, await call("GET", `/transcripts/google_meet/${live.code}`, { headers }));
		expect(transcript.segments).toHaveLength(1);
	});

	it("for a bot just sent", async () => {
		const { headers } = await userWithKey();
		const created = await expectDocumented(
			MeetingRecord,
			await call("POST", "/bots", { headers, json: { platform: "teams", native_meeting_id: "9398850880426", passcode: "WB7TSXPa" } }),
			201,
		);
		expect(created.status).toBe("requested");
	});
});
