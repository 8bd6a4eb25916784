/**
 * The Zoom web client in every UI language the bot knows and in its older generation (the
 * classic client at /wc/join/<id>), and what participants say, type or are named: a caption,
 * a chat line or a name that reads like an outcome screen, in any language, changes nothing.
 */

import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { UiLanguage } from "../../src/platforms/page-facts.ts";
import type { Scenario } from "../sandbox/scenario.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, segmentsOf, statusesOf } from "./room.ts";

/** Outcome and waiting sentences as the sandbox's Zoom shows them, said and typed by participants. */
const SENTENCES: Record<UiLanguage, { removed: string; ended: string; waiting: string }> = {
	en: {
		removed: "You have been removed from the meeting by the host.",
		ended: "This meeting has been ended by host",
		waiting: "This meeting link is invalid (3,001), please wait, the meeting host will let you in soon.",
	},
	de: {
		removed: "Sie wurden vom Host aus dem Meeting entfernt.",
		ended: "Dieses Meeting wurde vom Host beendet",
		waiting: "Dieser Meeting-Link ist ungültig (3,001), bitte warten, der Meeting-Host lässt Sie gleich eintreten.",
	},
	fr: {
		removed: "Vous avez été retiré de la réunion par l'hôte.",
		ended: "Cette réunion a été terminée par l'hôte",
		waiting: "Ce lien de réunion n'est pas valide (3,001), veuillez patienter dans la salle d'attente.",
	},
	es: {
		removed: "El anfitrión le ha eliminado de la reunión.",
		ended: "El anfitrión ha finalizado esta reunión",
		waiting: "Este enlace de reunión no es válido (3,001), espere en la sala de espera.",
	},
	pt: {
		removed: "Você foi removido da reunião pelo anfitrião.",
		ended: "Esta reunião foi encerrada pelo anfitrião",
		waiting: "Este link de reunião é inválido (3,001), aguarde na sala de espera.",
	},
};

const LANGUAGES = Object.keys(SENTENCES) as UiLanguage[];
const ALICE = "Alice Archer";

describe("the Zoom web client in other languages and generations", () => {
	const world = useWorld();

	const statuses = (meetingId: number) => statusesOf(world.room.received(meetingId)).map((s) => s.status);

	it.each(LANGUAGES)(
		"joins a %s meeting through its waiting room, transcribes outcome sentences said, typed and used as a name, and ends when the host ends it",
		async (language) => {
			const said = SENTENCES[language];
			const bot = await spawnBot(world, "zoom", {
				ui_language: language,
				admit_after_ms: 500,
				// Lines said before the bot has turned captions on are not captioned for it (on a busy machine that takes seconds).
				speech_start_ms: 2_500,
				speech_gap_ms: 300,
				participants: [
					{ name: ALICE, lines: [said.removed, said.waiting] },
					// Someone named like the end screen, saying it too.
					{ name: said.ended, lines: [said.ended] },
				],
				chat: [
					{ sender: ALICE, text: said.removed, after_ms: 200 },
					{ sender: said.ended, text: said.waiting, after_ms: 400 },
				],
			});
			const said3 = (r: ReturnType<typeof world.room.received>) =>
				segmentsOf(r)
					.filter((s) => s.completed)
					.map((s) => [s.speaker, s.text]);
			const confirmed = await Promise.race([
				world.room.until(bot.meetingId, (r) => (said3(r).length >= 3 || finalStatus(r) ? said3(r) : undefined)),
				new Promise<string[][]>((resolve) => setTimeout(() => resolve(said3(world.room.received(bot.meetingId))), 40_000)),
			]);
			expect(statuses(bot.meetingId)).toEqual(["joining", "awaiting_admission", "active"]);
			// The host ends the meeting once everything was said.
			await fetch(`${world.sandbox.controlUrl}/meetings/${bot.nativeId}/actions`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify({ action: "end" }),
			});
			const last = await world.room.until(bot.meetingId, finalStatus);
			expect(last).toMatchObject({
				status: "completed",
				completion_reason: "left_alone",
				completion_cause: "ended_by_host",
				reason: "the host ended the meeting",
			});
			expect(statuses(bot.meetingId)).toEqual(["joining", "awaiting_admission", "active", "completed"]);
			expect(confirmed).toEqual([
				[ALICE, said.removed],
				[said.ended, said.ended],
				[ALICE, said.waiting],
			]);
			const chat = world.room.received(bot.meetingId).flatMap((m) => (m.type === "chat" ? [[m.message.sender, m.message.text]] : []));
			expect(chat).toEqual([
				[ALICE, said.removed],
				[said.ended, said.waiting],
			]);
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "in_call", "ended"]);
		},
		60_000,
	);

	it.each(LANGUAGES.filter((language) => language !== "en"))(
		"reads the %s removal, denial and 3,001 screens as the ends they are",
		async (language) => {
			const scenario = (s: z.input<typeof Scenario>) => ({ ui_language: language, participants: [{ name: ALICE }], ...s });
			const [removed, denied, neverStarted] = await Promise.all([
				spawnBot(world, "zoom", scenario({ direct_join: true, remove_after_ms: 1_500 })),
				spawnBot(world, "zoom", scenario({ deny: true, deny_after_ms: 600 })),
				spawnBot(world, "zoom", scenario({ not_found: true }), { automatic_leave: { max_wait_for_host: 1_500 } }),
			]);
			const [r, d, n] = await Promise.all([removed, denied, neverStarted].map((bot) => world.room.until(bot.meetingId, finalStatus)));
			expect(r).toMatchObject({ completion_reason: "evicted", reason: "removed from the meeting" });
			expect(statuses(removed.meetingId)).toEqual(["joining", "active", "failed"]);
			expect(d).toMatchObject({ completion_reason: "awaiting_admission_rejected", failure_stage: "awaiting_admission" });
			expect(statuses(denied.meetingId)).toEqual(["joining", "awaiting_admission", "failed"]);
			expect(n).toMatchObject({ completion_reason: "join_failure", reason: expect.stringContaining("(max_wait_for_host)") });
			expect(statuses(neverStarted.meetingId)).toEqual(["joining", "joining", "failed"]);
			expect(n?.diagnostics?.page_state).toBe("waiting_for_host");
		},
		60_000,
	);

	it("joins the classic client (/wc/join/<id>) past its cookie banner, transcribes, chats and leaves", async () => {
		const bot = await spawnBot(world, "zoom", {
			dom_version: "older",
			direct_join: true,
			passcode: "s3cret",
			participants: [
				{ name: ALICE, lines: ["Good morning everyone, the numbers look great."] },
				{ name: "Bob Baker", lines: ["Thanks Alice, let us review the plan."] },
			],
			chat: [{ sender: ALICE, text: "Agenda is in the doc", after_ms: 300 }],
		});
		const done = await world.room.until(bot.meetingId, (r) => {
			const confirmed = segmentsOf(r).filter((s) => s.completed);
			return confirmed.length >= 2 ? confirmed : undefined;
		});
		expect(done.map((s) => s.speaker)).toEqual([ALICE, "Bob Baker"]);
		world.room.command(bot.meetingId, { action: "chat_send", text: "Hello from the notetaker" });
		await world.room.until(bot.meetingId, (r) => r.some((m) => m.type === "event" && m.name === "chat.sent"));
		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ completion_reason: "stopped" });
		const received = world.room.received(bot.meetingId);
		const joins = received.flatMap((m) => (m.type === "participant" && m.event === "join" ? [m.participant.name] : []));
		expect(joins.sort()).toEqual([ALICE, "Bob Baker"]);
		expect(received.some((m) => m.type === "chat" && m.message.text === "Agenda is in the doc")).toBe(true);
		const seen = world.sandbox.observed(bot.nativeId);
		expect(seen?.attendees[0]).toMatchObject({ passcode_ok: true, mic_on_at_join: false, camera_on_at_join: false, left: true });
		expect(seen?.chat_sent.map((c) => c.text)).toEqual(["Hello from the notetaker"]);
	});
});
