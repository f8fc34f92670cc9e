import { describe, expect, it } from "vitest";
import { eventSchema, followerEntrySchema, publicationSchema } from "@/lib/records/records";
import { entityIdFromNodeId, nodeIdFor } from "@/lib/records/node-id";
import { demoFixtures } from "./fixtures";
import { generateDemoData } from "./generate";

const PUBLIC_URL = "http://localhost:3000";
const data = generateDemoData(PUBLIC_URL);

const followersOf = (userid: string) => data.followerLists.find((list) => list.userid === userid)?.followers ?? [];
const eventById = (eventId: string) => data.events.find((event) => event.event_id === eventId);

describe("generateDemoData", () => {
  it("is deterministic: two runs are deep-equal", () => {
    expect(generateDemoData(PUBLIC_URL)).toEqual(data);
  });

  it("ignores a trailing slash on the public URL", () => {
    expect(generateDemoData(`${PUBLIC_URL}/`)).toEqual(data);
  });

  describe("events", () => {
    it("has the 40 fixture ids in order", () => {
      expect(data.events.map((event) => event.event_id)).toEqual(demoFixtures.eventIds);
      expect(demoFixtures.eventIds[0]).toBe("1000000000000001");
      expect(demoFixtures.eventIds[39]).toBe("1000000000000040");
    });

    it("passes the Event schema, keeping the schema's key order", () => {
      for (const event of data.events) {
        expect(eventSchema.parse(event)).toEqual(event);
        expect(Object.keys(event)).toEqual(Object.keys(eventSchema.shape));
      }
    });

    it("relates each event to 1–3 other existing demo events", () => {
      const titles = new Map(data.events.map((event) => [event.event_id, event.title]));
      for (const event of data.events) {
        expect(event.related_events.length).toBeGreaterThanOrEqual(1);
        expect(event.related_events.length).toBeLessThanOrEqual(3);
        const ids = event.related_events.map((related) => related.event_id);
        expect(new Set(ids).size).toBe(ids.length);
        for (const related of event.related_events) {
          expect(related.event_id).not.toBe(event.event_id);
          expect(titles.get(related.event_id)).toBe(related.title);
          expect(related.url).toBe(`https://events.demo.test/events/${related.event_id}/`);
        }
      }
    });

    it("has exactly one open-ended event, with only its start formatted", () => {
      const openEnded = data.events.filter((event) => event.end_time === null);
      expect(openEnded.map((event) => event.event_id)).toEqual([demoFixtures.openEndedEventId]);
      expect(openEnded[0]?.local_formatted_time).toMatch(/^\w+day, \w+ \d{1,2}, \d{4} at \d{1,2}:\d{2} [AP]M [A-Z]{3,4}$/);
    });

    it("has exactly one canceled event", () => {
      const canceled = data.events.filter((event) => event.is_canceled);
      expect(canceled.map((event) => event.event_id)).toEqual([demoFixtures.canceledEventId]);
    });

    it("has a multi-day event", () => {
      const event = eventById(demoFixtures.multiDayEventId);
      expect(event && event.end_date > event.start_date).toBe(true);
    });

    it("carries the XSS probe in the documented event only", () => {
      const probe = "<img src=x onerror=alert(1)> <script>alert('xss')</script>";
      expect(eventById(demoFixtures.xssProbeEventId)?.details).toContain(probe);
      expect(data.events.filter((event) => event.details.includes("<script>"))).toHaveLength(1);
    });

    it("formats local times with a zone suffix, dated 2026–2027", () => {
      for (const event of data.events) {
        expect(event.start_date >= "2026-01-01" && event.end_date <= "2027-12-31").toBe(true);
        expect(event.local_formatted_time).toMatch(/ [AP]M (CET|CEST|GMT|BST|EST|EDT|CST|CDT|PST|PDT|JST|AEST|AEDT)$/);
      }
      expect(eventById("1000000000000001")?.local_formatted_time).toBe(
        "Tuesday, January 13, 2026 at 6:30 PM – 9:30 PM CET",
      );
    });

    it("has details with line breaks, emoji and hashtags in several events", () => {
      const rich = data.events.filter(
        (event) => event.details.includes("\n") && /\p{Extended_Pictographic}/u.test(event.details) && /#\w+/.test(event.details),
      );
      expect(rich.length).toBeGreaterThan(10);
    });

    it("points cover images at the demo SVGs", () => {
      for (const event of data.events) {
        expect(event.cover_image_url).toMatch(/^http:\/\/localhost:3000\/demo\/covers\/([1-9]|1[0-2])\.svg$/);
      }
    });
  });

  describe("followers", () => {
    it("has the fixture users with exact follower counts", () => {
      expect(data.followerLists.map((list) => [list.userid, list.followers.length])).toEqual(
        demoFixtures.pinUsers.map((user) => [user.userid, user.followerCount]),
      );
      expect(followersOf("2000000001")).toHaveLength(10_000);
      expect(followersOf("2000000002")).toHaveLength(30);
      expect(followersOf("2000000003")).toHaveLength(0);
    });

    it("passes the Follower schema, keeping the schema's key order", () => {
      for (const entry of data.followerLists.flatMap((list) => list.followers)) {
        expect(followerEntrySchema.parse(entry)).toEqual(entry);
        expect(Object.keys(entry.node)).toEqual(Object.keys(followerEntrySchema.shape.node.shape));
        expect(entry.cursor).toBeNull();
      }
    });

    it("gives every follower a unique entityId and username, and the matching node id", () => {
      const all = data.followerLists.flatMap((list) => list.followers);
      expect(new Set(all.map((entry) => entry.node.entityId)).size).toBe(all.length);
      expect(new Set(all.map((entry) => entry.node.username)).size).toBe(all.length);
      for (const { node } of all) {
        expect(node.id).toBe(nodeIdFor(node.entityId));
        expect(entityIdFromNodeId(node.id)).toBe(node.entityId);
        expect(node.entityId.startsWith("5")).toBe(true);
      }
    });

    it("makes about 10% private, with no images and no verified identity", () => {
      const followers = followersOf("2000000001");
      const privateOnes = followers.filter((entry) => entry.node.isPrivateProfile);
      expect(privateOnes.length).toBeGreaterThan(800);
      expect(privateOnes.length).toBeLessThan(1200);
      for (const { node } of privateOnes) {
        expect(node.imageMediumUrl).toBeNull();
        expect(node.imageXlargeUrl).toBeNull();
        expect(node.verifiedIdentity).toBeNull();
      }
      for (const { node } of followers.filter((entry) => !entry.node.isPrivateProfile)) {
        expect(node.verifiedIdentity).toEqual({ verified: null });
        expect(node.imageMediumUrl).toMatch(/^http:\/\/localhost:3000\/demo\/avatars\/(\d+|default)\.svg$/);
      }
      expect(followers.some((entry) => entry.node.imageMediumUrl?.endsWith("/default.svg"))).toBe(true);
    });

    it("includes non-ASCII names", () => {
      const names = followersOf("2000000001").map((entry) => entry.node.fullName);
      expect(names).toContain("José Muñoz");
      expect(names).toContain("Zoë");
    });
  });

  describe("publications", () => {
    it("has the fixture profiles with exact publication counts", () => {
      expect(data.publicationLists.map((list) => [list.urn, list.publications.length])).toEqual([
        ["urn:li:member:3000000001", 45],
        ["urn:li:member:3000000002", 7],
        ["urn:li:member:3000000003", 0],
      ]);
    });

    it("passes the Publication schema with textual dates and https links", () => {
      const all = data.publicationLists.flatMap((list) => list.publications);
      for (const publication of all) {
        expect(publicationSchema.parse(publication)).toEqual(publication);
        expect(Object.keys(publication)).toEqual(Object.keys(publicationSchema.shape));
        expect(publication.date).toMatch(/^(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}, \d{4}$/);
        expect(publication.publication_url.startsWith("https://")).toBe(true);
      }
      expect(all.some((publication) => publication.description.includes("\n"))).toBe(true);
    });
  });
});
