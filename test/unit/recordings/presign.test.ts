import { describe, expect, it } from "vitest";
import { parseRange } from "../../../src/recordings/byte-range";
import { presignUrl, uriEncode } from "../../../src/recordings/presign";

describe("SigV4 query presigning", () => {
	it("reproduces the AWS documentation's presigned URL example exactly", async () => {
		// docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html, "An example".
		const url = await presignUrl({
			url: new URL("https://examplebucket.s3.amazonaws.com/test.txt"),
			accessKeyId: "AKIAIOSFODNN7EXAMPLE",
			secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			region: "us-east-1",
			expiresInSeconds: 86400,
			date: new Date("2013-05-24T00:00:00Z"),
		});
		expect(url).toBe(
			"https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
		);
	});

	it("encodes keys the SigV4 way: unreserved characters kept, slashes kept in paths only", () => {
		expect(uriEncode("recordings/1/a b+c~d.wav", true)).toBe("recordings/1/a%20b%2Bc~d.wav");
		expect(uriEncode("a/b", false)).toBe("a%2Fb");
		expect(uriEncode("é", false)).toBe("%C3%A9");
	});
});

describe("Range header", () => {
	it("reads one range, suffixes and open ends; ignores what it does not honour; flags ranges past the end", () => {
		expect(parseRange(undefined, 10)).toEqual({ kind: "full" });
		expect(parseRange("bytes=2-4", 10)).toEqual({ kind: "partial", start: 2, end: 4 });
		expect(parseRange("bytes=8-", 10)).toEqual({ kind: "partial", start: 8, end: 9 });
		expect(parseRange("bytes=-3", 10)).toEqual({ kind: "partial", start: 7, end: 9 });
		expect(parseRange("bytes=10-", 10)).toEqual({ kind: "unsatisfiable" });
		expect(parseRange("bytes=0-0", 0)).toEqual({ kind: "unsatisfiable" });
		expect(parseRange("bytes=0-1,3-4", 10)).toEqual({ kind: "full" });
		expect(parseRange("bytes=abc", 10)).toEqual({ kind: "full" });
	});
});
