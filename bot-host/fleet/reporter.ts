/**
 * Sends the host's report (HostReport) to the gateway every few seconds, for dashboards,
 * autoscaling and the reasons users see while a meeting waits for a host. Nothing's correctness
 * depends on one arriving, so a failure is logged (once per run of failures) and otherwise
 * ignored. A change in what keeps the host from taking work (`limited_by`) or in its free slots
 * is reported at once, not at the next interval: a meeting waiting for a bot shows that reason,
 * and the gateway lets a host claim only the free slots it last reported (src/bot-channel/host-slots.ts).
 */
import type { HostReport } from "../../src/bot-channel/fleet.ts";
import { errorText } from "../error-text.ts";
import type { Gateway } from "./gateway.ts";

export const DEFAULT_REPORT_S = 15;
/** How often the host looks for a change in its limits between reports. */
export const DEFAULT_LIMITS_CHECK_MS = 1_000;

export interface ReporterOptions {
	gateway: Gateway;
	report: () => HostReport;
	intervalMs: number;
	/** How often to look for a change in `limited_by` (default DEFAULT_LIMITS_CHECK_MS). */
	limitsCheckMs?: number;
	log: (line: string) => void;
}

export class Reporter {
	private timers: NodeJS.Timeout[] = [];
	private failing = false;
	/** The limits and free slots of the last report sent (or tried): a change from these goes out at once. */
	private lastLimits: string | null = null;
	private readonly options: ReporterOptions;

	constructor(options: ReporterOptions) {
		this.options = options;
	}

	start(): void {
		if (this.timers.length > 0) return;
		void this.send();
		this.timers = [
			setInterval(() => void this.send(), this.options.intervalMs),
			setInterval(() => void this.sendOnChange(), this.options.limitsCheckMs ?? DEFAULT_LIMITS_CHECK_MS),
		];
		for (const timer of this.timers) timer.unref();
	}

	stop(): void {
		for (const timer of this.timers) clearInterval(timer);
		this.timers = [];
	}

	/** One report now; never throws. */
	async send(report?: HostReport): Promise<void> {
		try {
			const sent = report ?? this.options.report();
			this.lastLimits = limitsOf(sent);
			await this.options.gateway.report(sent);
			if (this.failing) this.options.log("host report: the gateway takes reports again");
			this.failing = false;
		} catch (err) {
			if (!this.failing) this.options.log(`host report not taken: ${errorText(err)}; will keep trying`);
			this.failing = true;
		}
	}

	private async sendOnChange(): Promise<void> {
		let report: HostReport;
		try {
			report = this.options.report();
		} catch {
			// The next periodic send tries again and logs a failure once; a line per check would flood the log.
			return;
		}
		if (limitsOf(report) !== this.lastLimits) await this.send(report);
	}
}

const limitsOf = (report: HostReport) => `${(report.limited_by ?? []).join(",")} free ${report.free}`;
