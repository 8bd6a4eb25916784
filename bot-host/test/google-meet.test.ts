import { describePlatform } from "./platform-suite.ts";

describePlatform("google_meet", { speakerSource: "caption" });
