/**
 * A meeting's stream erased (docs/retention.md): the meeting was deleted, or its stream log
 * outlived the retention window. Every open stream closes, and everything kept here goes (the
 * log, the copilot's state, the summary job, the timers); what was there.
 */
import { type ErasedStorage, eraseStorage } from "../shared/erase";
import type { StreamContext } from "./context";

export function eraseStream(context: StreamContext): Promise<ErasedStorage> {
	context.log.forget();
	return eraseStorage(context.storage);
}
