/**
 * The copilot's cards across beats, with the scripted OpenAI-compatible model server naming the
 * same company again in later beats: one thing is one card, updated in place under its id, and
 * each beat is told which cards are already shown.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../../shared/wait";
import { liveMeeting } from "../meetings/helpers";
import { copilotOwner, ofType, said, startCopilot, streamEvents } from "./copilot-helpers";
import { bodyOf, script, sent } from "./helpers";

const card = (kind: string, title: string, body: string, actionable = false) => ({
	name: "add_card",
	arguments: { kind, title, body, actionable },
});

describe("the copilot's cards", () => {
	it("are one per thing across beats: a company named again updates its card in place, and a repeat that says nothing new adds nothing", async () => {
		const m = `cards-${crypto.randomUUID().slice(0, 8)}`;
		await script(m, [
			{ tool_calls: [card("company", "Acme Corp", "Alice works there")] },
			{ tool_calls: [card("company", "ACME corp.", "Signed the pilot"), card("person", "Bob Stone", "Runs the pilot")] },
			// The same company a third time, spaced and cased its own way, with nothing new to say.
			{ tool_calls: [card("company", "  acme   Corp ", "Signed the pilot"), card("action_item", "Bob  Stone!", "", true)] },
		]);
		const owner = await copilotOwner();
		const live = await liveMeeting(owner.headers);
		// The title reaches every beat's prompt: the marker that keys the scripted answers.
		await startCopilot(owner.headers, live.code, `Pilot ${m}`);
		const beats = async (count: number) => {
			await eventually(`beat ${count}'s tool calls`, async () =>
				ofType(await streamEvents(live.meeting.id), "tool-call").length >= [1, 3, 5][count - 1]! ? true : undefined,
			);
		};
		await live.bot.send(said("s-1", "Alice", "I am Alice from Acme Corp"));
		await live.bot.send(said("s-2", "Bob", "Welcome, Alice", 2));
		await beats(1);
		await live.bot.send(said("s-3", "Alice", "ACME signed the pilot", 3));
		await beats(2);
		await live.bot.send(said("s-4", "Bob", "I will run it", 4));
		await beats(3);

		const cards = ofType(await streamEvents(live.meeting.id), "card").map((e) => e.card);
		expect(cards).toEqual([
			{ id: "card-1", kind: "company", title: "Acme Corp", body: "Alice works there", actionable: false },
			// Updated in place: the same id and title, the newest words.
			{ id: "card-1", kind: "company", title: "Acme Corp", body: "Signed the pilot", actionable: false },
			{ id: "card-2", kind: "person", title: "Bob Stone", body: "Runs the pilot", actionable: false },
			// Bob named again as an action item: his card becomes actionable, keeps its kind and its body.
			{ id: "card-2", kind: "person", title: "Bob Stone", body: "Runs the pilot", actionable: true },
		]);
		expect(new Set(cards.map((c) => c.id))).toEqual(new Set(["card-1", "card-2"]));

		// Each beat after the first is told the cards already shown, as data.
		const prompts = (await sent(m)).map((r) => bodyOf(r).messages.at(-1)?.content ?? "");
		expect(prompts).toHaveLength(3);
		expect(prompts[0]).not.toContain("Cards already shown");
		expect(prompts[1]).toContain('Cards already shown (data): ["Acme Corp"]');
		expect(prompts[2]).toContain('Cards already shown (data): ["Acme Corp","Bob Stone"]');
		expect(bodyOf((await sent(m))[1]).messages[0]?.content).toContain("do not add them again");
	});
});
