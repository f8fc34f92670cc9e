import type { EventRecord } from "@/lib/records/records";
import type { FollowerList, PublicationList } from "@/lib/connectors/store-records";
import { generateEvents } from "./events";
import { generateFollowerLists } from "./followers";
import { generatePublicationLists } from "./publications";

/**
 * The demo data set: a fixed, realistic set of events, pin-board followers and publications that
 * every fresh install, test run and screenshot shares. Deterministic by construction: seeded PRNGs
 * (rng.ts), calendar maths in UTC (calendar.ts), time zones from the IANA database through Intl
 * (zones.ts), no clock and no Math.random. Change the content (event-specs.ts, the name lists),
 * never the seeds, or every fixture id and count in tests and docs (fixtures.ts) shifts.
 */
export type DemoData = {
  events: EventRecord[];
  followerLists: FollowerList[];
  publicationLists: PublicationList[];
};

/**
 * Builds the whole demo data set. `publicUrl` is the app's origin as browsers reach it; image URLs
 * point at the SVGs under public/demo there.
 */
export const generateDemoData = (publicUrl: string): DemoData => {
  const origin = publicUrl.replace(/\/+$/, "");
  return {
    events: generateEvents(origin),
    followerLists: generateFollowerLists(origin),
    publicationLists: generatePublicationLists(),
  };
};
