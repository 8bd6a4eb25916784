import { describe, expect, it } from "vitest";
import { screenshotSrc } from "./screenshot-src";

const signed = "/public/screenshots/12/1/help-1.jpg?expires=1790000000&signature=AbC-_09";

describe("a screenshot's img src", () => {
	it("is the gateway's signed screenshot route, on this origin whatever host the link named", () => {
		expect(screenshotSrc(`https://gateway.example${signed}`)).toBe(signed);
		expect(screenshotSrc(`http://127.0.0.1:8787${signed}`)).toBe(signed);
		expect(screenshotSrc(`https://evil.example${signed}&extra=1`)).toBe(signed);
	});

	it("is nothing for any other link, or for one without its signature", () => {
		for (const url of [
			null,
			undefined,
			42,
			"",
			"javascript:alert(1)//public/screenshots/12/1/help-1.jpg?expires=1&signature=a",
			"data:image/png;base64,iVBORw0KGgo=",
			"https://evil.example/tracker.gif?expires=1&signature=a",
			"https://gateway.example/public/recordings/3/recording-1-3.wav?expires=1&signature=a",
			"https://gateway.example/public/screenshots/12/1/help-1.svg?expires=1&signature=a",
			"https://gateway.example/public/screenshots/12/1/../../../auth/me.jpg?expires=1&signature=a",
			"https://gateway.example/public/screenshots/12/1/help-1.jpg",
			"https://gateway.example/public/screenshots/12/1/help-1.jpg?expires=soon&signature=a",
			"https://gateway.example/public/screenshots/12/1/help-1.jpg?expires=1&signature=a%22onerror%3D",
		]) {
			expect(screenshotSrc(url), String(url)).toBeNull();
		}
	});
});
