import crypto from "node:crypto";
import { SignJWT } from "jose";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { demoFixtures } from "@/lib/demo/fixtures";
import { followersDataSchema } from "@/lib/records/records";
import { randomSecret, type ApiTarget } from "./harness";
import {
  call,
  contractMessages as messages,
  costs,
  expectCredits,
  expectError,
  expectNoKeyHeaders,
  expectSuccess,
  eventUrl,
  nodeIdOf,
  paths,
  remainingCredits,
  type Answer,
  type OperationPath,
  type Query,
} from "./http";
import { PROFILE_45, USER_10000, USER_30 } from "@/tests/support/demo-subjects";

/**
 * Hostile and malformed input: every case gets its contract error (400 with the parameter's
 * name, 401 for tokens that are not valid keys) and none of them moves the key's credits.
 */
const targets = inject("apiTargets");

const HOST = demoFixtures.eventUrlHost;
const EVENT = "1000000000000001";
const TEN_KB = 10 * 1024;

type BadCase = { label: string; path: OperationPath; query: Query; message: string };

const missing = (path: OperationPath, label: string, query: Query, name: string): BadCase => ({
  label,
  path,
  query,
  message: messages.missing(name),
});
const invalid = (path: OperationPath, label: string, query: Query, name: string): BadCase => ({
  label,
  path,
  query,
  message: messages.invalid(name),
});

const SQLISH = ["1' OR '1'='1", "1; DROP TABLE api_keys;--", "1) UNION SELECT token_hash FROM api_keys--"];

const parameterCases = (cursors: { own: string; otherUser: string }): BadCase[] => [
  // event_details: url
  missing(paths.eventByUrl, "no url", {}, "url"),
  missing(paths.eventByUrl, "empty url", { url: "" }, "url"),
  invalid(paths.eventByUrl, "10 kB url", { url: `${eventUrl(EVENT)}?${"a".repeat(TEN_KB)}` }, "url"),
  invalid(paths.eventByUrl, "unicode digits", { url: `https://${HOST}/events/１０００/` }, "url"),
  invalid(paths.eventByUrl, "emoji path", { url: `https://${HOST}/events/🎉/` }, "url"),
  invalid(paths.eventByUrl, "url given twice", { url: [eventUrl(EVENT), eventUrl(EVENT)] }, "url"),
  invalid(paths.eventByUrl, "http: url", { url: `http://${HOST}/events/${EVENT}/` }, "url"),
  invalid(paths.eventByUrl, "ftp: url", { url: `ftp://${HOST}/events/${EVENT}/` }, "url"),
  invalid(paths.eventByUrl, "javascript: url", { url: "javascript:alert(1)" }, "url"),
  invalid(paths.eventByUrl, "protocol-relative url", { url: `//${HOST}/events/${EVENT}/` }, "url"),
  invalid(paths.eventByUrl, "wrong host", { url: `https://evil.example/events/${EVENT}/` }, "url"),
  invalid(paths.eventByUrl, "look-alike host", { url: `https://${HOST}.evil.example/events/${EVENT}/` }, "url"),
  invalid(paths.eventByUrl, "host in the userinfo", { url: `https://${HOST}@evil.example/events/${EVENT}/` }, "url"),
  invalid(paths.eventByUrl, "credentials in the url", { url: `https://user:pw@${HOST}/events/${EVENT}/` }, "url"),
  invalid(paths.eventByUrl, "other port", { url: `https://${HOST}:8443/events/${EVENT}/` }, "url"),
  invalid(paths.eventByUrl, "event url in a query", { url: `https://evil.example/?next=${eventUrl(EVENT)}` }, "url"),
  invalid(paths.eventByUrl, "traversal out of /events", { url: `https://${HOST}/events/../../etc/passwd` }, "url"),
  invalid(paths.eventByUrl, "encoded traversal", { url: `https://${HOST}/events/%2e%2e/%2e%2e/admin/` }, "url"),
  invalid(paths.eventByUrl, "encoded slashes", { url: `https://${HOST}/events/${EVENT}%2f..%2f..%2fetc%2fpasswd` }, "url"),
  invalid(paths.eventByUrl, "extra path segment", { url: `https://${HOST}/events/${EVENT}/extra` }, "url"),
  invalid(paths.eventByUrl, "NUL byte", { url: `https://${HOST}/events/${EVENT}\u0000/` }, "url"),
  ...SQLISH.map((value) => invalid(paths.eventByUrl, `SQL-ish url ${value}`, { url: `https://${HOST}/events/${value}/` }, "url")),
  // event_details_id: event_id
  missing(paths.eventById, "no event_id", {}, "event_id"),
  missing(paths.eventById, "empty event_id", { event_id: "" }, "event_id"),
  invalid(paths.eventById, "10 kB event_id", { event_id: "1".repeat(TEN_KB) }, "event_id"),
  invalid(paths.eventById, "21 digits", { event_id: "1".repeat(21) }, "event_id"),
  invalid(paths.eventById, "arabic-indic digits", { event_id: "١٢٣" }, "event_id"),
  invalid(paths.eventById, "fullwidth digits", { event_id: "１２３" }, "event_id"),
  invalid(paths.eventById, "leading space", { event_id: ` ${EVENT}` }, "event_id"),
  invalid(paths.eventById, "NUL byte", { event_id: `${EVENT}\u0000` }, "event_id"),
  invalid(paths.eventById, "event_id given twice", { event_id: [EVENT, "1000000000000002"] }, "event_id"),
  invalid(paths.eventById, "traversal", { event_id: "../../etc/passwd" }, "event_id"),
  ...SQLISH.map((value) => invalid(paths.eventById, `SQL-ish event_id ${value}`, { event_id: value }, "event_id")),
  // followers: userid / node_id / cursor
  missing(paths.followers, "nothing", {}, "userid"),
  missing(paths.followers, "empty userid and node_id", { userid: "", node_id: "" }, "userid"),
  missing(paths.followers, "a cursor alone", { cursor: cursors.own }, "userid"),
  invalid(paths.followers, "userid given twice", { userid: ["1", "2"] }, "userid"),
  invalid(paths.followers, "10 kB userid", { userid: "2".repeat(TEN_KB) }, "userid"),
  invalid(paths.followers, "unicode userid", { userid: "２０００００００２" }, "userid"),
  invalid(paths.followers, "negative userid", { userid: "-2000000002" }, "userid"),
  ...SQLISH.map((value) => invalid(paths.followers, `SQL-ish userid ${value}`, { userid: value }, "userid")),
  invalid(paths.followers, "NUL byte", { userid: "2000000002\u0000" }, "userid"),
  // 119 digits and an emoji: a summary cut at 120 UTF-16 units would keep half of the emoji.
  invalid(paths.followers, "emoji at the 120th character", { userid: `${"2".repeat(119)}🎉` }, "userid"),
  invalid(paths.followers, "node_id given twice", { node_id: [nodeIdOf(USER_30), nodeIdOf(USER_30)] }, "node_id"),
  invalid(paths.followers, "10 kB node_id", { node_id: "A".repeat(TEN_KB) }, "node_id"),
  invalid(paths.followers, "node_id path traversal", { node_id: "../../etc/passwd" }, "node_id"),
  invalid(paths.followers, "node_id of a non-numeric user", { node_id: Buffer.from("User:../1").toString("base64") }, "node_id"),
  invalid(paths.followers, "SQL-ish node_id", { node_id: Buffer.from("User:1' OR '1'='1").toString("base64") }, "node_id"),
  invalid(paths.followers, "unicode node_id", { node_id: "ÜSER" }, "node_id"),
  invalid(paths.followers, "tampered cursor", { node_id: nodeIdOf(USER_30), cursor: flipFirst(cursors.own) }, "cursor"),
  invalid(paths.followers, "cursor of another user", { node_id: nodeIdOf(USER_30), cursor: cursors.otherUser }, "cursor"),
  invalid(paths.followers, "cursor given twice", { node_id: nodeIdOf(USER_30), cursor: [cursors.own, cursors.own] }, "cursor"),
  invalid(paths.followers, "10 kB cursor", { node_id: nodeIdOf(USER_30), cursor: "a".repeat(TEN_KB) }, "cursor"),
  invalid(paths.followers, "cursor traversal", { node_id: nodeIdOf(USER_30), cursor: "../.." }, "cursor"),
  invalid(paths.followers, "unsigned cursor", { node_id: nodeIdOf(USER_30), cursor: Buffer.from(`${USER_30}:25`).toString("base64url") }, "cursor"),
  invalid(paths.followers, "SQL-ish cursor", { node_id: nodeIdOf(USER_30), cursor: "1' OR '1'='1" }, "cursor"),
  // get_user_publications: urn / page
  missing(paths.publications, "no urn", {}, "urn"),
  missing(paths.publications, "empty urn", { urn: "" }, "urn"),
  invalid(paths.publications, "urn given twice", { urn: [PROFILE_45, PROFILE_45] }, "urn"),
  invalid(paths.publications, "10 kB urn", { urn: `urn:li:member:${"3".repeat(TEN_KB)}` }, "urn"),
  invalid(paths.publications, "unicode urn", { urn: "urn:li:member:３０００" }, "urn"),
  invalid(paths.publications, "NUL byte", { urn: `${PROFILE_45}\u0000` }, "urn"),
  invalid(paths.publications, "emoji at the 120th character", { urn: `urn:li:member:${"3".repeat(105)}🎉` }, "urn"),
  invalid(paths.publications, "urn traversal", { urn: "urn:li:member:../../etc/passwd" }, "urn"),
  ...SQLISH.map((value) => invalid(paths.publications, `SQL-ish urn ${value}`, { urn: `${PROFILE_45}${value}` }, "urn")),
  invalid(paths.publications, "page 0", { urn: PROFILE_45, page: "0" }, "page"),
  invalid(paths.publications, "negative page", { urn: PROFILE_45, page: "-1" }, "page"),
  invalid(paths.publications, "fractional page", { urn: PROFILE_45, page: "1.5" }, "page"),
  invalid(paths.publications, "10 kB page", { urn: PROFILE_45, page: "9".repeat(TEN_KB) }, "page"),
  invalid(paths.publications, "page given twice", { urn: PROFILE_45, page: ["1", "2"] }, "page"),
  invalid(paths.publications, "unicode page", { urn: PROFILE_45, page: "２" }, "page"),
  invalid(paths.publications, "SQL-ish page", { urn: PROFILE_45, page: "1; DROP TABLE api_keys;--" }, "page"),
];

/** The cursor with its first character changed: another body, so another signature is needed. */
function flipFirst(cursor: string): string {
  return `${cursor.startsWith("A") ? "B" : "A"}${cursor.slice(1)}`;
}

const base64urlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

describe.each(targets)("$kind server", (target: ApiTarget) => {
  const key = target.keys.badInput;
  const cursors = { own: "", otherUser: "" };
  let baseline = 0;
  /** Answers of the sequence that charged anything (there should be none). */
  const charges: string[] = [];
  const noteCharge = (label: string, answer: Answer) => {
    const charged = answer.headers.get("x-credits-charged");
    if (charged !== null && charged !== "0") charges.push(`${label}: ${answer.status}, charged ${charged}`);
  };

  beforeAll(async () => {
    // Two genuine cursors to tamper with: 2000000002's second page, and 2000000001's.
    const own = await call(target, paths.followers, { auth: key, query: { userid: USER_30 } });
    cursors.own = expectSuccess(own, followersDataSchema).page_info.end_cursor ?? "";
    const other = await call(target, paths.followers, { auth: key, query: { userid: USER_10000 } });
    cursors.otherUser = expectSuccess(other, followersDataSchema).page_info.end_cursor ?? "";
    baseline = remainingCredits(other);
    expect(baseline).toBe(key.credits - 4);
  });

  describe("malformed parameters", () => {
    it("answers each with its 400 message and charges nothing", async () => {
      const failures: string[] = [];
      for (const badCase of parameterCases(cursors)) {
        const answer = await call(target, badCase.path, { auth: key, query: badCase.query });
        noteCharge(`${badCase.path} ${badCase.label}`, answer);
        const body = answer.body as { message?: unknown } | undefined;
        if (answer.status !== 400 || body?.message !== badCase.message) {
          failures.push(`${badCase.path} ${badCase.label}: ${answer.status} ${answer.text.slice(0, 160)}`);
          continue;
        }
        expectError(answer, 400, badCase.message);
        expectCredits(answer, { cost: costs[badCase.path], charged: 0, remaining: baseline });
      }
      expect(failures).toEqual([]);
    });

    it("refuses every single-character change of a genuine cursor", async () => {
      const accepted: string[] = [];
      for (let index = 0; index < cursors.own.length; index += 1) {
        const current = cursors.own.charAt(index);
        const replacement = base64urlAlphabet.charAt((base64urlAlphabet.indexOf(current) + 1) % base64urlAlphabet.length);
        const tampered = `${cursors.own.slice(0, index)}${replacement}${cursors.own.slice(index + 1)}`;
        const answer = await call(target, paths.followers, {
          auth: key,
          query: { node_id: nodeIdOf(USER_30), cursor: tampered },
        });
        noteCharge(`cursor changed at position ${index}`, answer);
        if (answer.status !== 400) {
          accepted.push(`position ${index} (${current}→${replacement}): ${answer.status}`);
          continue;
        }
        expectError(answer, 400, messages.invalid("cursor"));
        expectCredits(answer, { cost: 2, charged: 0, remaining: baseline });
      }
      expect(accepted).toEqual([]);
    });
  });

  describe("tokens that are not valid keys", () => {
    it("answers 401 apiKey is invalid to forged, revoked and foreign-signed tokens", async () => {
      const [header = "", payload = "", signature = ""] = key.token.split(".");
      const forgedPayload = Buffer.from(JSON.stringify({ kid: key.id, jti: "x", iat: 1 })).toString("base64url");
      const tokens: Record<string, string> = {
        "the revoked key": target.keys.badInputRevoked.token,
        "payload swapped (kid kept)": `${header}.${forgedPayload}.${signature}`,
        "alg none": `${Buffer.from('{"alg":"none","typ":"JWT"}').toString("base64url")}.${payload}.`,
        "signed with another secret": await new SignJWT({ kid: key.id })
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .setJti(crypto.randomBytes(16).toString("base64url"))
          .setIssuedAt()
          .sign(new TextEncoder().encode(randomSecret(48))),
        "SQL-ish token": "x'OR'1'='1';--",
        "10 kB token": "a".repeat(TEN_KB),
      };
      for (const [label, token] of Object.entries(tokens)) {
        const answer = await call(target, paths.publications, {
          auth: { authorization: `Bearer ${token}` },
          query: { urn: PROFILE_45 },
        });
        expect(answer.status, label).toBe(401);
        expectError(answer, 401, messages.keyInvalid);
        expectNoKeyHeaders(answer);
      }
    });
  });

  describe("after the whole sequence", () => {
    it("left the key's credits where they were", async () => {
      const answer = await call(target, paths.publications, { auth: key });
      expectError(answer, 400, messages.missing("urn"));
      expect(charges, "answers of the sequence that charged credits").toEqual([]);
      expectCredits(answer, { cost: 1, charged: 0, remaining: baseline });
    });
  });
});
