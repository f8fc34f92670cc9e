import crypto from "node:crypto";
import { SignJWT } from "jose";
import { describe, expect, inject, it } from "vitest";
import type { z } from "zod";
import { eventDataSchema, followersDataSchema, publicationsDataSchema, type FollowerEntry } from "@/lib/records/records";
import { demoFixtures } from "@/lib/demo/fixtures";
import { generateDemoData } from "@/lib/demo/generate";
import { creditsRemaining, delay, randomSecret, type ApiTarget, type IssuedKey } from "./harness";
import {
  call,
  contractMessages as messages,
  costs,
  creditTracker,
  expectCredits,
  expectEnvelope,
  expectError,
  expectNoKeyHeaders,
  expectRateLimitHeaders,
  expectSuccess,
  eventUrl,
  header,
  nodeIdOf,
  paths,
  rawCall,
  remainingCredits,
  type Answer,
  type OperationPath,
  type Query,
} from "./http";
import { PROFILE_0, PROFILE_45, PROFILE_7, USER_0, USER_10000, USER_30 } from "@/tests/support/demo-subjects";

/**
 * The contract of docs/api.md, operation by operation, against the production server:
 * success shapes compared field for field with the demo data, every error code and message,
 * credits after each call, pagination, and the order of checks.
 */
const targets = inject("apiTargets");

const UNKNOWN_EVENT = "1000000000000999";
const UNKNOWN_USER = "2999999999";
const UNKNOWN_PROFILE = "urn:li:member:3999999999";

/** A valid request of each operation (a record that exists). */
const validQuery: Record<OperationPath, Query> = {
  [paths.eventByUrl]: { url: eventUrl("1000000000000001") },
  [paths.eventById]: { event_id: "1000000000000001" },
  [paths.followers]: { userid: USER_30 },
  [paths.publications]: { urn: PROFILE_45 },
};

const operationPaths = Object.values(paths);

/** A token with one character changed (to another character of the base64url alphabet). */
const withCharChanged = (token: string, index: number): string => {
  const current = token.charAt(index);
  const replacement = current === "A" ? "B" : "A";
  return `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
};

const foreignToken = (keyId: string, secret: string): Promise<string> =>
  new SignJWT({ kid: keyId })
    .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: keyId })
    .setJti(crypto.randomBytes(16).toString("base64url"))
    .setIssuedAt()
    .sign(new TextEncoder().encode(secret));

const followerIds = (followers: readonly FollowerEntry[]): string[] => followers.map((entry) => entry.node.entityId);

describe.each(targets)("$kind server", (target: ApiTarget) => {
  const seed = generateDemoData(target.publicUrl);
  const keys = target.keys;
  const key = keys.contract;
  const credits = creditTracker(key.credits);
  const seedFollowers = (userId: string): FollowerEntry[] =>
    seed.followerLists.find((list) => list.userid === userId)?.followers ?? [];
  const seedPublications = (urn: string) => seed.publicationLists.find((list) => list.urn === urn)?.publications ?? [];
  const get = (path: string, query: Query = {}, auth: IssuedKey | { authorization: string } | null = key) =>
    call(target, path, { auth, query });
  /** A lookup that succeeds: its data (checked against the schema and the contract's field order), its cost charged. */
  const found = async <Schema extends z.ZodType>(path: OperationPath, query: Query, dataSchema: Schema, costCredits: number): Promise<z.infer<Schema>> => {
    const answer = await get(path, query);
    const data = expectSuccess(answer, dataSchema);
    credits.charged(answer, costCredits);
    return data;
  };
  /** Each query answers `status` with `message`, and none of them moves the key's credits. */
  const expectFreeErrors = async (path: OperationPath, list: readonly Query[], status: number, message: string, costCredits: number) => {
    for (const query of list) {
      const answer = await get(path, query);
      expectError(answer, status, message);
      credits.free(answer, costCredits);
    }
  };
  /** Each query answers 400 Invalid parameter with the parameter named beside it, at no cost. */
  const expectInvalid = async (path: OperationPath, cases: readonly [Query, string][], costCredits: number) => {
    for (const [query, name] of cases) await expectFreeErrors(path, [query], 400, messages.invalid(name), costCredits);
  };

  describe("the demo data set the server was seeded with", () => {
    it("has the fixtures this suite relies on", () => {
      expect(seed.events.map((event) => event.event_id)).toEqual(demoFixtures.eventIds);
      expect(seed.events.filter((event) => event.end_time === null).map((event) => event.event_id)).toContain(
        demoFixtures.openEndedEventId,
      );
      expect(seed.events.filter((event) => event.is_canceled).map((event) => event.event_id)).toContain(
        demoFixtures.canceledEventId,
      );
      expect([USER_10000, USER_30, USER_0].map((id) => seedFollowers(id).length)).toEqual([10_000, 30, 0]);
      expect([PROFILE_45, PROFILE_7, PROFILE_0].map((urn) => seedPublications(urn).length)).toEqual([45, 7, 0]);
    });
  });

  describe("GET /v1/eventsite/event_details_id", () => {
    it("returns every demo event field for field in the contract's order, charging 4 credits each", async () => {
      for (const event of seed.events) {
        const answer = await get(paths.eventById, { event_id: event.event_id });
        const data = expectSuccess(answer, eventDataSchema);
        expect(data.event).toEqual(event);
        credits.charged(answer, 4);
        expectRateLimitHeaders(answer, key.qps);
      }
    });

    it("returns the open-ended event with end_time null", async () => {
      expect((await found(paths.eventById, { event_id: demoFixtures.openEndedEventId }, eventDataSchema, 4)).event.end_time).toBeNull();
    });

    it("returns the canceled event with is_canceled true", async () => {
      expect((await found(paths.eventById, { event_id: demoFixtures.canceledEventId }, eventDataSchema, 4)).event.is_canceled).toBe(true);
    });

    it("answers 404 Event not found for an unknown id and charges nothing", async () => {
      await expectFreeErrors(paths.eventById, [{ event_id: UNKNOWN_EVENT }], 404, messages.eventNotFound, 4);
    });

    it("answers 400 Missing required parameter: event_id without it (or empty) and charges nothing", async () => {
      await expectFreeErrors(paths.eventById, [{}, { event_id: "" }], 400, messages.missing("event_id"), 4);
    });

    it("answers 400 Invalid parameter: event_id for a value that is not 1-20 digits", async () => {
      const eventIds = ["abc", "12a", "-1", "1.5", "1".repeat(21)];
      await expectFreeErrors(paths.eventById, eventIds.map((eventId) => ({ event_id: eventId })), 400, messages.invalid("event_id"), 4);
    });
  });

  describe("GET /v1/eventsite/event_details", () => {
    it("returns every demo event by its page URL, the same record as by id, charging 4 credits each", async () => {
      for (const event of seed.events) {
        const data = await found(paths.eventByUrl, { url: eventUrl(event.event_id) }, eventDataSchema, 4);
        expect(data.event).toEqual(event);
      }
    });

    it("accepts www. and m. prefixes, a missing trailing slash and a query string", async () => {
      const eventId = "1000000000000002";
      const expected = seed.events.find((event) => event.event_id === eventId);
      for (const url of [
        eventUrl(eventId, `www.${demoFixtures.eventUrlHost}`),
        eventUrl(eventId, `m.${demoFixtures.eventUrlHost}`),
        `https://${demoFixtures.eventUrlHost}/events/${eventId}`,
        `${eventUrl(eventId)}?ref=newsletter&utm_source=x`,
      ]) {
        expect((await found(paths.eventByUrl, { url }, eventDataSchema, 4)).event, url).toEqual(expected);
      }
    });

    it("answers 404 Event not found for the URL of an unknown event and charges nothing", async () => {
      await expectFreeErrors(paths.eventByUrl, [{ url: eventUrl(UNKNOWN_EVENT) }], 404, messages.eventNotFound, 4);
    });

    it("answers 400 Missing required parameter: url without it (or empty)", async () => {
      await expectFreeErrors(paths.eventByUrl, [{}, { url: "" }, { event_id: "1000000000000001" }], 400, messages.missing("url"), 4);
    });

    it("answers 400 Invalid parameter: url for http:, another host, or a path that is not an event page", async () => {
      const urls = [
        `http://${demoFixtures.eventUrlHost}/events/1000000000000001/`,
        "https://evil.example/events/1000000000000001/",
        `https://${demoFixtures.eventUrlHost}/groups/1000000000000001/`,
        `https://${demoFixtures.eventUrlHost}/events/abc/`,
        "1000000000000001",
      ];
      await expectFreeErrors(paths.eventByUrl, urls.map((url) => ({ url })), 400, messages.invalid("url"), 4);
    });
  });

  describe("GET /v1/pinsite/followers", () => {
    it("returns the first page of 25 for a userid with node_id and page_info, charging 2 credits", async () => {
      const data = await found(paths.followers, { userid: USER_30 }, followersDataSchema, 2);
      expect(data.followers).toHaveLength(25);
      expect(data.followers).toEqual(seedFollowers(USER_30).slice(0, 25));
      expect(data.followers.every((entry) => entry.cursor === null)).toBe(true);
      expect(data.node_id).toBe(nodeIdOf(USER_30));
      expect(data.page_info.has_next_page).toBe(true);
      expect(data.page_info.end_cursor).toEqual(expect.any(String));
    });

    it("walks a user's 30 followers in two pages (25 + 5), every follower exactly once, in order", async () => {
      const first = await get(paths.followers, { userid: USER_30 });
      const page1 = expectSuccess(first, followersDataSchema);
      credits.charged(first, 2);
      expect(page1.page_info.has_next_page).toBe(true);
      const cursor = page1.page_info.end_cursor ?? "";

      const second = await get(paths.followers, { node_id: page1.node_id, cursor });
      const page2 = expectSuccess(second, followersDataSchema);
      credits.charged(second, 2);
      expect(page2.followers).toHaveLength(5);
      expect(page2.node_id).toBe(page1.node_id);
      expect(page2.page_info).toEqual({ has_next_page: false, end_cursor: null });

      const walked = followerIds([...page1.followers, ...page2.followers]);
      expect(walked).toHaveLength(30);
      expect(new Set(walked).size).toBe(30);
      expect([...page1.followers, ...page2.followers]).toEqual(seedFollowers(USER_30));
    });

    it("gives the same end_cursor for the same page asked twice", async () => {
      const answers = [await get(paths.followers, { userid: USER_10000 }), await get(paths.followers, { userid: USER_10000 })];
      const cursors = answers.map((answer) => {
        credits.charged(answer, 2);
        return expectSuccess(answer, followersDataSchema).page_info.end_cursor;
      });
      expect(cursors[0]).toEqual(expect.any(String));
      expect(cursors[1]).toBe(cursors[0]);
    });

    it("pages through a user with 10,000 followers in seed order", async () => {
      const expected = seedFollowers(USER_10000);
      let query: Query = { userid: USER_10000 };
      for (let page = 0; page < 3; page += 1) {
        const data = await found(paths.followers, query, followersDataSchema, 2);
        expect(data.followers).toEqual(expected.slice(page * 25, page * 25 + 25));
        expect(data.page_info.has_next_page).toBe(true);
        query = { node_id: data.node_id, cursor: data.page_info.end_cursor ?? "" };
      }
    });

    it("answers node_id without cursor with the first page", async () => {
      const data = await found(paths.followers, { node_id: nodeIdOf(USER_30) }, followersDataSchema, 2);
      expect(data.followers).toEqual(seedFollowers(USER_30).slice(0, 25));
      expect(data.page_info.has_next_page).toBe(true);
    });

    it("answers 200 with no followers for a user who has none (and charges 2 credits)", async () => {
      const data = await found(paths.followers, { userid: USER_0 }, followersDataSchema, 2);
      expect(data).toEqual({
        followers: [],
        node_id: nodeIdOf(USER_0),
        page_info: { has_next_page: false, end_cursor: null },
      });
    });

    it("answers 404 User not found for an unknown userid or node_id and charges nothing", async () => {
      await expectFreeErrors(paths.followers, [{ userid: UNKNOWN_USER }, { node_id: nodeIdOf(UNKNOWN_USER) }], 404, messages.userNotFound, 2);
    });

    it("answers 400 Missing required parameter: userid when neither userid nor node_id is given", async () => {
      await expectFreeErrors(paths.followers, [{}, { userid: "" }, { node_id: "" }, { cursor: "abc" }], 400, messages.missing("userid"), 2);
    });

    it("answers 400 Invalid parameter: userid / node_id / cursor for malformed values", async () => {
      const first = await get(paths.followers, { userid: USER_10000 });
      const otherUsersCursor = expectSuccess(first, followersDataSchema).page_info.end_cursor ?? "";
      credits.charged(first, 2);
      const cases: [Query, string][] = [
        [{ userid: "abc" }, "userid"],
        [{ node_id: "not a node id!" }, "node_id"],
        [{ node_id: Buffer.from("Board:2000000002").toString("base64") }, "node_id"],
        [{ node_id: nodeIdOf(USER_30), cursor: "garbage.cursor" }, "cursor"],
        [{ node_id: nodeIdOf(USER_30), cursor: withCharChanged(otherUsersCursor, 0) }, "cursor"],
        // A genuine cursor, but of another user's list.
        [{ node_id: nodeIdOf(USER_30), cursor: otherUsersCursor }, "cursor"],
      ];
      await expectInvalid(paths.followers, cases, 2);
    });
  });

  describe("GET /v1/jobsite/get_user_publications", () => {
    it("pages 45 publications 10 at a time: 5 pages, has_more until the last, charging 1 credit each", async () => {
      const pages = [];
      for (let page = 1; page <= 5; page += 1) {
        const data = await found(paths.publications, { urn: PROFILE_45, page: String(page) }, publicationsDataSchema, 1);
        expect({ page: data.page, total: data.total, has_more: data.has_more, count: data.data.length }).toEqual({
          page,
          total: 45,
          has_more: page < 5,
          count: page < 5 ? 10 : 5,
        });
        pages.push(...data.data);
      }
      expect(pages).toEqual(seedPublications(PROFILE_45));
    });

    it("answers page 1 when page is not given", async () => {
      const data = await found(paths.publications, { urn: PROFILE_45 }, publicationsDataSchema, 1);
      expect(data.page).toBe(1);
      expect(data.data).toEqual(seedPublications(PROFILE_45).slice(0, 10));
    });

    it("answers a page past the end with 200, data [], has_more false and the real total", async () => {
      expect(await found(paths.publications, { urn: PROFILE_45, page: "6" }, publicationsDataSchema, 1)).toEqual({ page: 6, total: 45, has_more: false, data: [] });
    });

    it("answers a profile with 7 publications in one page", async () => {
      const answer = await get(paths.publications, { urn: PROFILE_7 });
      expect(expectSuccess(answer, publicationsDataSchema)).toEqual({
        page: 1,
        total: 7,
        has_more: false,
        data: seedPublications(PROFILE_7),
      });
      credits.charged(answer, 1);
    });

    it("answers 200 with no publications for a profile that has none", async () => {
      expect(await found(paths.publications, { urn: PROFILE_0 }, publicationsDataSchema, 1)).toEqual({ page: 1, total: 0, has_more: false, data: [] });
    });

    it("answers 404 Profile not found for an unknown urn and charges nothing", async () => {
      await expectFreeErrors(paths.publications, [{ urn: UNKNOWN_PROFILE }], 404, messages.profileNotFound, 1);
    });

    it("answers 400 Missing required parameter: urn without it (or empty)", async () => {
      await expectFreeErrors(paths.publications, [{}, { urn: "" }, { page: "2" }], 400, messages.missing("urn"), 1);
    });

    it("answers 400 Invalid parameter: page for a page that is not an integer ≥ 1, and urn for a malformed urn", async () => {
      const cases: [Query, string][] = [
        ...["0", "-1", "1.5", "abc", "1e2"].map((page): [Query, string] => [{ urn: PROFILE_45, page }, "page"]),
        [{ urn: "3000000001" }, "urn"],
        [{ urn: "urn:li:member:" }, "urn"],
      ];
      await expectInvalid(paths.publications, cases, 1);
    });
  });

  describe("the envelope and headers of every /v1 answer", () => {
    it("gives every answer, success or failure, a fresh requestId", async () => {
      const answers = [
        await get(paths.publications, { urn: PROFILE_7 }),
        await get(paths.publications, { urn: PROFILE_7 }),
        await get(paths.publications, {}),
        await get(paths.publications, { urn: PROFILE_7 }, null),
        await call(target, "/v1/nowhere"),
      ];
      const ids = answers.map((answer) => expectEnvelope(answer).requestId);
      expect(new Set(ids).size).toBe(ids.length);
      credits.charged(answers[0] as Answer, 1);
      credits.charged(answers[1] as Answer, 1);
      credits.free(answers[2] as Answer, 1);
    });

    it("sends the success body with exactly code, message, data, requestId", async () => {
      const answer = await get(paths.publications, { urn: PROFILE_0 });
      credits.charged(answer, 1);
      const requestId = header(answer, "x-request-id") ?? "";
      expect(answer.text).toBe(
        `{"code":0,"message":"success","data":{"page":1,"total":0,"has_more":false,"data":[]},"requestId":"${requestId}"}`,
      );
    });

    it("reports X-Credits-Cost/-Charged/-Remaining and RateLimit-* on authenticated answers", async () => {
      for (const path of operationPaths) {
        const answer = await get(path, validQuery[path]);
        expect(answer.status).toBe(200);
        credits.charged(answer, costs[path]);
        expectRateLimitHeaders(answer, key.qps);
        const failed = await get(path, {});
        expect(failed.status).toBe(400);
        credits.free(failed, costs[path]);
        expectRateLimitHeaders(failed, key.qps);
      }
    });
  });

  describe("authentication (401)", () => {
    const nullAuthorizations = ["", "Basic eDp4", "Bearer", "Bearer   ", "Token abc", "Bearer two tokens"];

    it("answers 401 apiKey is null without an Authorization: Bearer <token> header, on every operation", async () => {
      for (const path of operationPaths) {
        const none = await get(path, validQuery[path], null);
        expectError(none, 401, messages.keyMissing);
        expectNoKeyHeaders(none);
        for (const authorization of nullAuthorizations.filter((value) => value !== "")) {
          const answer = await get(path, validQuery[path], { authorization });
          expectError(answer, 401, messages.keyMissing);
          expectNoKeyHeaders(answer);
        }
      }
    });

    it("answers 401 apiKey is invalid for a token that is not one of ours, on every operation", async () => {
      const signature = key.token.split(".")[2] ?? "";
      const payloadStart = key.token.indexOf(".") + 1;
      const invalidTokens = {
        garbage: "not-a-token",
        "a JWT signed with another secret for a real key id": await foreignToken(key.id, randomSecret(48)),
        "a JWT signed with our secret for a real key id but never issued": await foreignToken(
          key.id,
          target.env.AUTH_SECRET ?? "",
        ),
        "the revoked key": keys.contractRevoked.token,
        "the token with one signature character changed": withCharChanged(
          key.token,
          key.token.length - signature.length + Math.floor(signature.length / 2),
        ),
        "the token with one payload character changed": withCharChanged(key.token, payloadStart + 5),
        "the token with its signature cut off": key.token.slice(0, key.token.length - signature.length),
        "the token twice": `${key.token}${key.token}`,
      };
      for (const path of operationPaths) {
        for (const [label, token] of Object.entries(invalidTokens)) {
          const answer = await get(path, validQuery[path], { authorization: `Bearer ${token}` });
          expect(answer.status, `${label} on ${path}`).toBe(401);
          expectError(answer, 401, messages.keyInvalid);
          expectNoKeyHeaders(answer);
        }
      }
      // None of that was charged to the real key.
      const check = await get(paths.publications, {});
      credits.free(check, 1);
    });

    it("accepts the scheme name in any case", async () => {
      const answer = await get(paths.publications, { urn: PROFILE_0 }, { authorization: `bearer ${key.token}` });
      expect(answer.status).toBe(200);
      credits.charged(answer, 1);
    });
  });

  describe("rate limit (429)", () => {
    it("answers 429 qps limit exceeded with Retry-After to the requests over the per-second limit, charging nothing", async () => {
      const burstKey = keys.contractBurst;
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => get(paths.publications, { urn: PROFILE_0 }, burstKey)),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
      for (const answer of answers) {
        expectRateLimitHeaders(answer, burstKey.qps);
        if (answer.status === 200) {
          expectCredits(answer, { cost: 1, charged: 1 });
          continue;
        }
        expectError(answer, 429, messages.qps);
        expectCredits(answer, { cost: 1, charged: 0 });
        expect(header(answer, "retry-after")).toMatch(/^[1-9]\d*$/);
        expect(header(answer, "ratelimit-remaining")).toBe("0");
      }
      const retryAfter = Math.max(...answers.map((answer) => Number(header(answer, "retry-after") ?? "0")));
      await delay(retryAfter * 1000 + 100);
      expect(await creditsRemaining(target, burstKey)).toBe(burstKey.credits - 2);
    });
  });

  describe("credits (402)", () => {
    it("answers 402 apiKey quota is not enough when 1 credit is left for a 4-credit event, and the key keeps its credit", async () => {
      const poorKey = keys.contractOneCredit;
      for (const path of [paths.eventById, paths.eventByUrl, paths.followers]) {
        const answer = await get(path, validQuery[path], poorKey);
        expectError(answer, 402, messages.quota);
        expectCredits(answer, { cost: costs[path], charged: 0, remaining: 1 });
      }
      expect(await creditsRemaining(target, poorKey)).toBe(1);
    });

    it("lets the last credit pay for a 1-credit lookup, then answers 402", async () => {
      const poorKey = keys.contractOneCredit;
      const paid = await get(paths.publications, { urn: PROFILE_0 }, poorKey);
      expect(paid.status).toBe(200);
      expectCredits(paid, { cost: 1, charged: 1, remaining: 0 });
      const refused = await get(paths.publications, { urn: PROFILE_0 }, poorKey);
      expectError(refused, 402, messages.quota);
      expectCredits(refused, { cost: 1, charged: 0, remaining: 0 });
    });
  });

  describe("order of checks", () => {
    it("answers 400 (not 402) to a request with a missing parameter from a key without credits", async () => {
      const emptyKey = keys.contractNoCredits;
      for (const path of operationPaths) {
        const answer = await get(path, {}, emptyKey);
        expect(answer.status).toBe(400);
        expectCredits(answer, { cost: costs[path], charged: 0, remaining: 0 });
        const valid = await get(path, validQuery[path], emptyKey);
        expectError(valid, 402, messages.quota);
      }
    });

    it("answers 402 (not 404) to a lookup of an unknown record from a key with too few credits", async () => {
      const emptyKey = keys.contractNoCredits;
      const cases: [OperationPath, Query][] = [
        [paths.eventById, { event_id: UNKNOWN_EVENT }],
        [paths.eventByUrl, { url: eventUrl(UNKNOWN_EVENT) }],
        [paths.followers, { userid: UNKNOWN_USER }],
        [paths.publications, { urn: UNKNOWN_PROFILE }],
      ];
      for (const [path, query] of cases) {
        const answer = await get(path, query, emptyKey);
        expectError(answer, 402, messages.quota);
        expectCredits(answer, { cost: costs[path], charged: 0, remaining: 0 });
      }
      const oneCredit = await get(paths.eventById, { event_id: UNKNOWN_EVENT }, keys.contractOneCredit);
      expectError(oneCredit, 402, messages.quota);
    });

    it("answers 429 (not 400) to a request over the rate limit with bad parameters", async () => {
      const slowKey = keys.contractRateFirst;
      const first = await get(paths.publications, { urn: PROFILE_0 }, slowKey);
      expect(first.status).toBe(200);
      const overLimit = await get(paths.publications, { page: "zero" }, slowKey);
      expectError(overLimit, 429, messages.qps);
      expectCredits(overLimit, { cost: 1, charged: 0 });
      const retryAfter = Number(header(overLimit, "retry-after") ?? "1");
      await delay(retryAfter * 1000 + 100);
      const afterWindow = await get(paths.publications, { page: "zero" }, slowKey);
      expectError(afterWindow, 400, messages.missing("urn"));
    });

    it("answers 401 before anything else: a revoked key with bad parameters", async () => {
      const answer = await get(paths.publications, { page: "zero" }, keys.contractRevoked);
      expectError(answer, 401, messages.keyInvalid);
      expectNoKeyHeaders(answer);
    });
  });

  describe("paths and methods outside the operations", () => {
    it("answers an unknown /v1 path with the 404 envelope", async () => {
      for (const path of ["/v1/nowhere", "/v1/eventsite/event", "/v1/pinsite/followers/extra", "/v1/v1"]) {
        for (const auth of [null, key]) {
          const answer = await call(target, path, { auth });
          expectError(answer, 404, "Not found");
        }
      }
    });

    it("answers other methods on an operation with the 405 envelope and Allow: GET, charging nothing", async () => {
      for (const path of operationPaths) {
        for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
          const answer = await call(target, path, { auth: key, query: validQuery[path], method });
          expectError(answer, 405, "Method not allowed");
          expect(header(answer, "allow")).toBe("GET");
        }
      }
      const check = await get(paths.publications, {});
      credits.free(check, 1);
    });

    /** What is wrong with an answer to a path under /v1, or null when it is a JSON error envelope. */
    const problemWith = (path: string, answer: Answer): string | null => {
      const summary = `${path} → ${answer.status} ${answer.headers.get("content-type") ?? "(no content-type)"}: ${answer.text.slice(0, 60)}`;
      if (answer.headers.get("content-type") !== "application/json; charset=utf-8") return summary;
      if (/<html|<!DOCTYPE/i.test(answer.text)) return summary;
      const body = answer.body as Partial<Record<string, unknown>> | undefined;
      if (typeof body !== "object" || body === null) return summary;
      if (Object.keys(body).join(",") !== "code,message,data,requestId") return summary;
      if (body.code !== answer.status || body.data !== null || typeof body.message !== "string") return summary;
      if (![400, 401, 404, 405].includes(answer.status)) return summary;
      return null;
    };

    const expectEnvelopesFor = async (oddPaths: readonly string[]) => {
      const problems: string[] = [];
      for (const path of oddPaths) {
        for (const auth of [null, key]) {
          const problem = problemWith(path, await rawCall(target, path, auth));
          if (problem !== null) problems.push(`${auth === null ? "no key" : "with key"}: ${problem}`);
        }
      }
      expect(problems).toEqual([]);
    };

    it("never answers HTML under /v1: trailing slashes, odd cases, NUL, long and unknown paths", async () => {
      await expectEnvelopesFor([
        "/v1",
        "/v1/",
        "/v1/pinsite/followers/",
        "/v1/eventsite/event_details_id/",
        "/v1/./pinsite/followers",
        "/v1/pinsite/../x",
        "/v1/pinsite/%2e%2e/x",
        "/v1/..%2f..%2fapi/health",
        "/v1/PINSITE/FOLLOWERS",
        "/v1/pinsite/followers%00",
        "/v1/openapi.json/x",
        "/v1/_next/static/x.js",
        "/v1/index.html",
        `/v1/${"a".repeat(2000)}`,
      ]);
      // None of it was charged.
      const check = await get(paths.publications, {});
      expect(remainingCredits(check)).toBe(credits.remaining);
    });

    // RFC 3986: %2e is ".", so /v1/%2e%2e/x is /x — not a /v1 path (Next resolves it so too).
    it("redirects a doubled slash to the canonical path, which answers the envelope", async () => {
      const response = await fetch(`${target.baseUrl}/v1//pinsite/followers`, { redirect: "manual" });
      expect(response.status).toBe(308);
      expect(response.headers.get("location")).toBe("/v1/pinsite/followers");
      const followed = await fetch(`${target.baseUrl}/v1//pinsite/followers`);
      expect(followed.status).toBe(401);
      expect(await followed.json()).toMatchObject({ code: 401, message: "apiKey is null", data: null });
    });

    it("answers /v1/%E0%A4%A (malformed percent-encoding) with a JSON envelope, not a text/plain 500", async () => {
      await expectEnvelopesFor(["/v1/%E0%A4%A", "/v1/pinsite/followers%"]);
    });
  });
});
