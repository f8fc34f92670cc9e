import type { EventRecord } from "@/lib/records/records";
import { calendarDay, clock12, clock24, dayNumberOf, isoDate, longDate, type CalendarDay } from "./calendar";
import { EVENT_SPECS, KINDS, type EventSpec } from "./event-specs";
import { demoFixtures } from "./fixtures";
import { at, createRng, SEEDS, type Rng } from "./rng";
import { VENUES, type Venue } from "./venues";
import { zoneNameAt } from "./zones";

// The demo events: one per listing of event-specs.ts, dated, timed and described.

const OPENERS = ["✨", "🎉", "📣", "🔥", "🌟", "👋"] as const;

const hashtag = (text: string) => `#${text.replace(/[^\p{L}\p{N}]/gu, "").toLowerCase()}`;

const XSS_PROBE = [
  "Live demo payloads below. They must show up as plain text on any page that renders this event:",
  "<img src=x onerror=alert(1)> <script>alert('xss')</script>",
  '<a href="javascript:alert(document.cookie)">click me</a> "quoted" & \'single\' </textarea><svg onload=alert(2)>',
].join("\n");

const detailsFor = (spec: EventSpec, venue: Venue, rng: Rng, flags: { canceled: boolean; xssProbe: boolean }): string => {
  const profile = KINDS[spec.kind];
  const notes = rng.shuffled(profile.notes).slice(0, rng.int(2, 3));
  if (spec.formal) {
    return [
      spec.blurb,
      `Programme and cast subject to change.\nDoors open 45 minutes before the performance; latecomers are admitted at a suitable break.`,
      `${venue.name}, ${venue.city}`,
    ].join("\n\n");
  }
  const tags = [...spec.tags, venue.city].map(hashtag);
  const paragraphs = [
    flags.canceled ? `❌ CANCELLED: ${spec.title}` : `${rng.pick(OPENERS)} ${spec.title}`,
    spec.blurb,
    ...(flags.xssProbe ? [XSS_PROBE] : []),
    notes.join("\n"),
    `📍 ${venue.name}, ${venue.street}`,
    [...new Set(tags)].join(" "),
  ];
  return paragraphs.join("\n\n");
};

const formattedTime = (
  start: CalendarDay,
  startMinutes: number,
  end: { day: CalendarDay; minutes: number } | null,
  zone: string,
): string => {
  const from = `${longDate(start)} at ${clock12(startMinutes)}`;
  if (end === null) return `${from} ${zone}`;
  // Past the next morning the end needs its own date; an overnight party shows only the hour.
  const overnight = end.day.dayNumber === start.dayNumber || (end.day.dayNumber === start.dayNumber + 1 && end.minutes <= 12 * 60);
  const to = overnight ? clock12(end.minutes) : `${longDate(end.day)} at ${clock12(end.minutes)}`;
  return `${from} – ${to} ${zone}`;
};

const EVENT_ID_BASE = 1_000_000_000_000_001;
const FIRST_EVENT_DAY = dayNumberOf(2026, 1, 12);
const DAYS_BETWEEN_EVENTS = 17;

const eventUrl = (eventId: string) => `https://${demoFixtures.eventUrlHost}/events/${eventId}/`;

export const generateEvents = (publicUrl: string): EventRecord[] => {
  const rng = createRng(SEEDS.events);
  const ids = EVENT_SPECS.map((_, index) => String(EVENT_ID_BASE + index));

  return EVENT_SPECS.map((spec, index) => {
    const eventId = at(ids, index);
    const venue: Venue = VENUES[spec.venue];
    const profile = KINDS[spec.kind];

    // Spread over 2026–2027 in id order, then onto the kind's usual weekday.
    let startDayNumber = FIRST_EVENT_DAY + index * DAYS_BETWEEN_EVENTS + rng.int(0, 6);
    if (profile.weekday !== undefined) {
      startDayNumber += (profile.weekday - calendarDay(startDayNumber).weekday + 7) % 7;
    }
    const startDay = calendarDay(startDayNumber);
    const openEnded = eventId === demoFixtures.openEndedEventId;
    const endTotalMinutes = profile.startMinutes + profile.durationMinutes;
    const endDay = openEnded ? startDay : calendarDay(startDayNumber + Math.floor(endTotalMinutes / (24 * 60)));
    const endMinutes = endTotalMinutes % (24 * 60);
    const zone = zoneNameAt(venue.zone, startDay, profile.startMinutes);
    const canceled = eventId === demoFixtures.canceledEventId;

    const relatedCount = rng.int(1, 3);
    const relatedIds = new Set<string>();
    while (relatedIds.size < relatedCount) {
      const candidate = rng.pick(ids);
      if (candidate !== eventId) relatedIds.add(candidate);
    }

    const hasPlace = rng.chance(0.35);
    const event: EventRecord = {
      stats: "ok",
      event_id: eventId,
      start_date: isoDate(startDay),
      start_time: clock24(profile.startMinutes),
      end_date: isoDate(endDay),
      end_time: openEnded ? null : clock24(endMinutes),
      local_formatted_time: formattedTime(
        startDay,
        profile.startMinutes,
        openEnded ? null : { day: endDay, minutes: endMinutes },
        zone,
      ),
      title: spec.title,
      location_text: `${venue.name}, ${venue.street}`,
      lat: venue.lat,
      lng: venue.lng,
      details: detailsFor(spec, venue, rng, { canceled, xssProbe: eventId === demoFixtures.xssProbeEventId }),
      source: demoFixtures.source,
      tags: spec.tags,
      has_tickets: profile.hasTickets,
      hosts: spec.hosts,
      related_events: [...relatedIds].map((relatedId) => ({
        event_id: relatedId,
        url: eventUrl(relatedId),
        title: at(EVENT_SPECS, Number(relatedId) - EVENT_ID_BASE).title,
      })),
      responded_count: canceled ? rng.int(5, 60) : rng.int(profile.responded[0], profile.responded[1]),
      cover_image_url: `${publicUrl}/demo/covers/${(index % 12) + 1}.svg`,
      location_place: hasPlace
        ? {
            id: String(100_000_000_000_000 + index * 7_919),
            name: venue.name,
            city: venue.city,
            country: venue.country,
            latitude: venue.lat,
            longitude: venue.lng,
          }
        : null,
      location_from_details: { name: venue.name, contextual_name: `${venue.city}, ${venue.country}` },
      is_canceled: canceled,
    };
    return event;
  });
};
