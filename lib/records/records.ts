import { z } from "zod";

/**
 * The records the API returns, in the contract's own shapes and field order
 * (docs/api.md "Answers", docs/decisions.md "Records"). The same schemas validate imports and seed
 * data and generate the OpenAPI document.
 */
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe("YYYY-MM-DD");
const time = z.string().regex(/^\d{2}:\d{2}:\d{2}$/).describe("HH:MM:SS, the event's local time");
const digits = z.string().regex(/^\d{1,20}$/);

export const relatedEventSchema = z
  .object({ event_id: digits, url: z.url(), title: z.string() })
  .meta({ id: "RelatedEvent" });

export const eventSchema = z
  .object({
    stats: z.string().describe('status flag of the lookup; "ok"'),
    event_id: digits.describe("numeric identifier carried as a string"),
    start_date: date,
    start_time: time,
    end_date: date,
    end_time: time.nullable().describe("null when the event has no end time"),
    local_formatted_time: z.string().describe("human-readable start (and end) with a zone suffix"),
    title: z.string(),
    location_text: z.string(),
    lat: z.number().min(-90).max(90),
    lng: z.number().min(-180).max(180),
    details: z.string().describe("free text; may contain line breaks, emoji and hashtags"),
    source: z.string(),
    tags: z.array(z.string()),
    has_tickets: z.boolean().nullable(),
    hosts: z.array(z.string()),
    related_events: z.array(relatedEventSchema),
    responded_count: z.number().int().min(0),
    cover_image_url: z.url(),
    location_place: z.record(z.string(), z.unknown()).nullable(),
    location_from_details: z.object({ name: z.string(), contextual_name: z.string() }),
    is_canceled: z.boolean(),
  })
  .meta({ id: "Event" });

export const followerNodeSchema = z
  .object({
    username: z.string(),
    status: z.string(),
    fullName: z.string(),
    imageMediumUrl: z.url().nullable(),
    imageXlargeUrl: z.url().nullable(),
    entityId: digits,
    isPrivateProfile: z.boolean(),
    verifiedIdentity: z.object({ verified: z.boolean().nullable() }).nullable(),
    id: z.string().describe("opaque encoded identifier (the node id)"),
    __typename: z.string(),
  })
  .meta({ id: "FollowerNode" });

export const followerEntrySchema = z
  .object({ node: followerNodeSchema, cursor: z.string().nullable() })
  .meta({ id: "Follower" });

export const publicationSchema = z
  .object({
    title: z.string(),
    publication: z.string().describe("publisher name"),
    description: z.string().describe("may contain line breaks"),
    date: z.string().describe('textual date "<Mon> <D>, <YYYY>"'),
    publication_url: z.url(),
  })
  .meta({ id: "Publication" });

export const followersDataSchema = z
  .object({
    followers: z.array(followerEntrySchema),
    node_id: z.string().describe("the target user's opaque id; pass it with cursor for the next page"),
    page_info: z.object({ has_next_page: z.boolean(), end_cursor: z.string().nullable() }),
  })
  .meta({ id: "FollowersPage" });

export const publicationsDataSchema = z
  .object({
    page: z.number().int().min(1),
    total: z.number().int().min(0),
    has_more: z.boolean(),
    data: z.array(publicationSchema),
  })
  .meta({ id: "PublicationsPage" });

export const eventDataSchema = z.object({ event: eventSchema }).meta({ id: "EventDetails" });

/** Import shapes: a pin-board user with all followers, a profile with all publications. */
export const followerListSchema = z.object({
  userid: digits,
  node_id: z.string().optional(),
  followers: z.array(followerEntrySchema),
});
export const publicationListSchema = z.object({
  urn: z.string(),
  publications: z.array(publicationSchema),
});

export type EventRecord = z.infer<typeof eventSchema>;
export type FollowerEntry = z.infer<typeof followerEntrySchema>;
export type Publication = z.infer<typeof publicationSchema>;
export type FollowersData = z.infer<typeof followersDataSchema>;
export type PublicationsData = z.infer<typeof publicationsDataSchema>;
