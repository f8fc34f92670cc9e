/** Ids and counts of the demo data set (generate.ts) that tests, docs and the console's "try it" links rely on. */
export const demoFixtures = {
  eventIds: Array.from({ length: 40 }, (_, index) => String(1_000_000_000_000_001 + index)),
  /** A talk with `end_time: null` (no announced end). */
  openEndedEventId: "1000000000000007",
  /** An event with `is_canceled: true`. */
  canceledEventId: "1000000000000013",
  /** Details (and title) carry HTML/script probes that every page must render as plain text. */
  xssProbeEventId: "1000000000000040",
  /** Runs over several days: end_date after start_date. */
  multiDayEventId: "1000000000000017",
  eventUrlHost: "events.demo.test",
  pinUsers: [
    { userid: "2000000001", followerCount: 10_000 },
    { userid: "2000000002", followerCount: 30 },
    { userid: "2000000003", followerCount: 0 },
  ],
  profiles: [
    { urn: "urn:li:member:3000000001", publicationCount: 45 },
    { urn: "urn:li:member:3000000002", publicationCount: 7 },
    { urn: "urn:li:member:3000000003", publicationCount: 0 },
  ],
  source: "demo",
} as const;
