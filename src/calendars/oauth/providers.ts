/** The calendar providers you sign into, by id (docs/api.md#calendars-you-sign-into). */
import type { CalendarKind } from "../../db/schema";
import { type CalendarProvider, PROVIDER_IDS, type ProviderId } from "./calendar-provider";
import { google } from "./google";
import { microsoft } from "./microsoft";

const PROVIDERS: Record<ProviderId, CalendarProvider> = { google, microsoft };

export function providerOf(kind: CalendarKind | string): CalendarProvider | null {
	return (PROVIDER_IDS as readonly string[]).includes(kind) ? PROVIDERS[kind as ProviderId] : null;
}

export const allProviders = () => PROVIDER_IDS.map((id) => PROVIDERS[id]);
