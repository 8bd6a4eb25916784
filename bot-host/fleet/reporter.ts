/**
 * Sends the host's report (HostReport) to the gateway every few seconds, for dashboards and
 * autoscaling. Nothing's correctness depends on one arriving, so a failure is logged (once per
 * run of failures) and otherwise ignored.
 */
import type { HostReport } from "../../src/bot-channel/fleet.ts";
import { errorText } from "../error-text.ts";
import type { Gateway } from "./gateway.ts";

export const DEFAULT_REPORT_S = 15;

export class Reporter {
	private timer: NodeJS.Timeout | null = null;
	private failing = false;
	private readonly options: { gateway: Gateway; report: () => HostReport; intervalMs: number; log: (line: string) => void };

	constructor(options: { gateway: Gateway; report: () => HostReport; intervalMs: number; log: (line: string) => void }) {
		this.options = options;
	}

	start(): void {
		if (this.timer) return;
		void this.send();
		this.timer = setInterval(() => void this.send(), this.options.intervalMs);
		this.timer.unref();
	}

	stop(): void {
		if (this.timer) clearInterval(this.timer);
		this.timer = null;
	}

	/** One report now; never throws. */
	async send(): Promise<void> {
		try {
			await this.options.gateway.report(this.options.report());
			if (this.failing) this.options.log("host report: the gateway takes reports again");
			this.failing = false;
		} catch (err) {
			if (!this.failing) this.options.log(`host report not taken: ${errorText(err)}; will keep trying`);
			this.failing = true;
		}
	}
}
