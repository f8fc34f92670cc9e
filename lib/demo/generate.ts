import type { EventRecord, FollowerEntry, Publication } from "@/lib/api/records";
import { nodeIdFor } from "@/lib/connectors/node-id";
import type { FollowerList, PublicationList } from "@/lib/connectors/store-records";

/**
 * The demo data set: a fixed, realistic set of events, pin-board followers and publications that
 * every fresh install, test run and screenshot shares. Deterministic by construction: seeded PRNGs,
 * calendar maths in UTC, time-zone abbreviations from explicit rules (Intl's names differ between
 * ICU builds), no clock and no Math.random. Change the content here, never the seeds, or every
 * fixture id and count in tests and docs shifts.
 */

export type DemoData = {
  events: EventRecord[];
  followerLists: FollowerList[];
  publicationLists: PublicationList[];
};

/** Ids and counts that tests, docs and the console's "try it" links rely on. */
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

// ---------------------------------------------------------------------------------------------
// Seeded randomness

type Rng = {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates: Array#sort with a random comparator differs between engines). */
  shuffled<T>(items: readonly T[]): T[];
};

/** mulberry32: tiny, fast and identical on every JS engine (32-bit integer maths only). */
const createRng = (seed: number): Rng => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (probability) => next() < probability,
    pick: <T>(items: readonly T[]): T => {
      const item = items[int(0, items.length - 1)];
      if (item === undefined) throw new Error("pick() from an empty list");
      return item;
    },
    shuffled: <T>(items: readonly T[]): T[] => {
      const copy = [...items];
      for (let index = copy.length - 1; index > 0; index -= 1) {
        const other = int(0, index);
        const current = copy[index];
        const swapped = copy[other];
        if (current === undefined || swapped === undefined) continue;
        copy[index] = swapped;
        copy[other] = current;
      }
      return copy;
    },
  };
};

// One seed per section, so that editing the events does not reshuffle every follower.
const SEEDS = { events: 0x5eed_0001, followers: 0x5eed_0002, publications: 0x5eed_0003 } as const;

const at = <T>(items: readonly T[], index: number): T => {
  const item = items[index];
  if (item === undefined) throw new Error(`No item at index ${index}`);
  return item;
};

// ---------------------------------------------------------------------------------------------
// Calendar (UTC day numbers, so no machine time zone leaks in)

const DAY_MS = 86_400_000;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
] as const;

type CalendarDay = { year: number; month: number; day: number; weekday: number; dayNumber: number };

const dayNumberOf = (year: number, month: number, day: number): number => Date.UTC(year, month - 1, day) / DAY_MS;

const calendarDay = (dayNumber: number): CalendarDay => {
  const date = new Date(dayNumber * DAY_MS);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    weekday: date.getUTCDay(),
    dayNumber,
  };
};

const pad2 = (value: number) => String(value).padStart(2, "0");
const isoDate = (day: CalendarDay) => `${day.year}-${pad2(day.month)}-${pad2(day.day)}`;
const longDate = (day: CalendarDay) =>
  `${at(WEEKDAYS, day.weekday)}, ${at(MONTHS, day.month - 1)} ${day.day}, ${day.year}`;

/** The n-th (1-based) Sunday of a month, or the last one when n is "last". */
const sundayOf = (year: number, month: number, n: number | "last"): number => {
  if (n === "last") {
    const lastDay = dayNumberOf(year, month + 1, 0);
    return lastDay - calendarDay(lastDay).weekday;
  }
  const firstDay = dayNumberOf(year, month, 1);
  return firstDay + ((7 - calendarDay(firstDay).weekday) % 7) + (n - 1) * 7;
};

type ZoneRule = { standard: string; summer: string; isSummer: (day: CalendarDay) => boolean };

// Daylight-saving rules by the calendar day of the event start (evening events never straddle a
// 2-3 AM switch in this data set, so the hour of the switch does not matter).
const ZONES = {
  centralEurope: {
    standard: "CET",
    summer: "CEST",
    isSummer: (day: CalendarDay) =>
      day.dayNumber >= sundayOf(day.year, 3, "last") && day.dayNumber < sundayOf(day.year, 10, "last"),
  },
  uk: {
    standard: "GMT",
    summer: "BST",
    isSummer: (day: CalendarDay) =>
      day.dayNumber >= sundayOf(day.year, 3, "last") && day.dayNumber < sundayOf(day.year, 10, "last"),
  },
  usEastern: {
    standard: "EST",
    summer: "EDT",
    isSummer: (day: CalendarDay) => day.dayNumber >= sundayOf(day.year, 3, 2) && day.dayNumber < sundayOf(day.year, 11, 1),
  },
  usCentral: {
    standard: "CST",
    summer: "CDT",
    isSummer: (day: CalendarDay) => day.dayNumber >= sundayOf(day.year, 3, 2) && day.dayNumber < sundayOf(day.year, 11, 1),
  },
  usPacific: {
    standard: "PST",
    summer: "PDT",
    isSummer: (day: CalendarDay) => day.dayNumber >= sundayOf(day.year, 3, 2) && day.dayNumber < sundayOf(day.year, 11, 1),
  },
  japan: { standard: "JST", summer: "JST", isSummer: () => false },
  // Southern hemisphere: summer time runs from October into April.
  sydney: {
    standard: "AEST",
    summer: "AEDT",
    isSummer: (day: CalendarDay) => day.dayNumber >= sundayOf(day.year, 10, 1) || day.dayNumber < sundayOf(day.year, 4, 1),
  },
} satisfies Record<string, ZoneRule>;

const zoneAbbreviation = (zone: ZoneRule, day: CalendarDay) => (zone.isSummer(day) ? zone.summer : zone.standard);

/** "7:00 PM" from minutes after midnight. */
const clock12 = (minutes: number): string => {
  const hours = Math.floor(minutes / 60) % 24;
  const suffix = hours < 12 ? "AM" : "PM";
  return `${hours % 12 === 0 ? 12 : hours % 12}:${pad2(minutes % 60)} ${suffix}`;
};
const clock24 = (minutes: number) => `${pad2(Math.floor(minutes / 60) % 24)}:${pad2(minutes % 60)}:00`;

// ---------------------------------------------------------------------------------------------
// Venues (real places, coordinates of the building or park)

type Venue = {
  name: string;
  street: string;
  city: string;
  country: string;
  lat: number;
  lng: number;
  zone: ZoneRule;
};

const VENUES = {
  kulturbrauerei: { name: "Kulturbrauerei", street: "Schönhauser Allee 36, 10435 Berlin", city: "Berlin", country: "Germany", lat: 52.5389, lng: 13.4132, zone: ZONES.centralEurope },
  tempodrom: { name: "Tempodrom", street: "Möckernstraße 10, 10963 Berlin", city: "Berlin", country: "Germany", lat: 52.5013, lng: 13.3806, zone: ZONES.centralEurope },
  factory: { name: "Factory Berlin Görlitzer Park", street: "Lohmühlenstraße 65, 12435 Berlin", city: "Berlin", country: "Germany", lat: 52.4963, lng: 13.448, zone: ZONES.centralEurope },
  mauerpark: { name: "Mauerpark", street: "Bernauer Straße 63-64, 13355 Berlin", city: "Berlin", country: "Germany", lat: 52.5434, lng: 13.4025, zone: ZONES.centralEurope },
  tempelhof: { name: "Tempelhofer Feld", street: "Tempelhofer Damm, 12101 Berlin", city: "Berlin", country: "Germany", lat: 52.4731, lng: 13.4015, zone: ZONES.centralEurope },
  elbphilharmonie: { name: "Elbphilharmonie", street: "Platz der Deutschen Einheit 4, 20457 Hamburg", city: "Hamburg", country: "Germany", lat: 53.5413, lng: 9.9842, zone: ZONES.centralEurope },
  paradiso: { name: "Paradiso", street: "Weteringschans 6-8, 1017 SG Amsterdam", city: "Amsterdam", country: "Netherlands", lat: 52.3623, lng: 4.8838, zone: ZONES.centralEurope },
  melkweg: { name: "Melkweg", street: "Lijnbaansgracht 234A, 1017 PH Amsterdam", city: "Amsterdam", country: "Netherlands", lat: 52.3647, lng: 4.8811, zone: ZONES.centralEurope },
  tivoli: { name: "TivoliVredenburg", street: "Vredenburgkade 11, 3511 WC Utrecht", city: "Utrecht", country: "Netherlands", lat: 52.0927, lng: 5.1139, zone: ZONES.centralEurope },
  barbican: { name: "Barbican Centre", street: "Silk Street, London EC2Y 8DS", city: "London", country: "United Kingdom", lat: 51.5201, lng: -0.0937, zone: ZONES.uk },
  southbank: { name: "Southbank Centre", street: "Belvedere Road, London SE1 8XX", city: "London", country: "United Kingdom", lat: 51.5059, lng: -0.1166, zone: ZONES.uk },
  roundhouse: { name: "Roundhouse", street: "Chalk Farm Road, London NW1 8EH", city: "London", country: "United Kingdom", lat: 51.5433, lng: -0.1518, zone: ZONES.uk },
  bataclan: { name: "Bataclan", street: "50 Boulevard Voltaire, 75011 Paris", city: "Paris", country: "France", lat: 48.863, lng: 2.3707, zone: ZONES.centralEurope },
  philharmonie: { name: "Philharmonie de Paris", street: "221 Avenue Jean Jaurès, 75019 Paris", city: "Paris", country: "France", lat: 48.8918, lng: 2.3938, zone: ZONES.centralEurope },
  apolo: { name: "Sala Apolo", street: "Carrer Nou de la Rambla 113, 08004 Barcelona", city: "Barcelona", country: "Spain", lat: 41.3744, lng: 2.1696, zone: ZONES.centralEurope },
  cccb: { name: "CCCB", street: "Carrer de Montalegre 5, 08001 Barcelona", city: "Barcelona", country: "Spain", lat: 41.3836, lng: 2.1667, zone: ZONES.centralEurope },
  ciutadella: { name: "Parc de la Ciutadella", street: "Passeig de Picasso 21, 08003 Barcelona", city: "Barcelona", country: "Spain", lat: 41.3881, lng: 2.1873, zone: ZONES.centralEurope },
  circoPrice: { name: "Teatro Circo Price", street: "Ronda de Atocha 35, 28012 Madrid", city: "Madrid", country: "Spain", lat: 40.4061, lng: -3.699, zone: ZONES.centralEurope },
  matadero: { name: "Matadero Madrid", street: "Paseo de la Chopera 14, 28045 Madrid", city: "Madrid", country: "Spain", lat: 40.3918, lng: -3.6977, zone: ZONES.centralEurope },
  museumsquartier: { name: "MuseumsQuartier Wien", street: "Museumsplatz 1, 1070 Wien", city: "Vienna", country: "Austria", lat: 48.2034, lng: 16.3587, zone: ZONES.centralEurope },
  brooklynSteel: { name: "Brooklyn Steel", street: "319 Frost St, Brooklyn, NY 11222", city: "New York", country: "United States", lat: 40.7194, lng: -73.9386, zone: ZONES.usEastern },
  javits: { name: "Javits Center", street: "429 11th Ave, New York, NY 10001", city: "New York", country: "United States", lat: 40.7577, lng: -74.0022, zone: ZONES.usEastern },
  fillmore: { name: "The Fillmore", street: "1805 Geary Blvd, San Francisco, CA 94115", city: "San Francisco", country: "United States", lat: 37.784, lng: -122.4332, zone: ZONES.usPacific },
  moscone: { name: "Moscone Center", street: "747 Howard St, San Francisco, CA 94103", city: "San Francisco", country: "United States", lat: 37.7842, lng: -122.4016, zone: ZONES.usPacific },
  metro: { name: "Metro Chicago", street: "3730 N Clark St, Chicago, IL 60613", city: "Chicago", country: "United States", lat: 41.9497, lng: -87.6587, zone: ZONES.usCentral },
  hub1871: { name: "1871", street: "222 W Merchandise Mart Plaza, Chicago, IL 60654", city: "Chicago", country: "United States", lat: 41.8885, lng: -87.6354, zone: ZONES.usCentral },
  tokyoForum: { name: "Tokyo International Forum", street: "3-5-1 Marunouchi, Chiyoda City, Tokyo 100-0005", city: "Tokyo", country: "Japan", lat: 35.6768, lng: 139.7639, zone: ZONES.japan },
  sydneyOpera: { name: "Sydney Opera House", street: "Bennelong Point, Sydney NSW 2000", city: "Sydney", country: "Australia", lat: -33.8568, lng: 151.2153, zone: ZONES.sydney },
} satisfies Record<string, Venue>;

type VenueKey = keyof typeof VENUES;

// ---------------------------------------------------------------------------------------------
// Events

type Kind =
  | "concert" | "club" | "meetup" | "conference" | "market"
  | "festival" | "workshop" | "run" | "exhibition" | "talk";

type KindProfile = {
  /** Minutes after local midnight. */
  startMinutes: number;
  durationMinutes: number;
  /** 0 = Sunday; events of this kind move to the next such weekday. */
  weekday?: number;
  hasTickets: boolean | null;
  responded: readonly [number, number];
  notes: readonly string[];
};

const KINDS: Record<Kind, KindProfile> = {
  concert: {
    startMinutes: 20 * 60, durationMinutes: 180, hasTickets: true, responded: [180, 4200],
    notes: ["🎟️ Tickets at the box office and online", "🚪 Doors 7 PM · Show 8 PM", "♿ Step-free access via the main entrance", "🧥 Cloakroom available"],
  },
  club: {
    startMinutes: 23 * 60, durationMinutes: 420, weekday: 5, hasTickets: true, responded: [90, 2600],
    notes: ["🔞 18+ only, bring ID", "📵 No photos on the dancefloor", "🎧 Sets announced on the day", "💧 Free water at every bar"],
  },
  meetup: {
    startMinutes: 18 * 60 + 30, durationMinutes: 180, hasTickets: false, responded: [25, 380],
    notes: ["🍕 Pizza and drinks from 6:30 PM", "🎤 Want to speak next time? Reply in the group chat", "📹 Talks are recorded", "🤝 Newcomers very welcome"],
  },
  conference: {
    startMinutes: 9 * 60, durationMinutes: 33 * 60, hasTickets: true, responded: [400, 5200],
    notes: ["🎫 Early-bird tickets until the end of the month", "☕ Coffee and lunch included", "🧑‍💻 Workshops need a laptop", "📺 Main-stage talks are streamed"],
  },
  market: {
    startMinutes: 10 * 60, durationMinutes: 480, weekday: 0, hasTickets: null, responded: [150, 3900],
    notes: ["💶 Cash is king, but most stalls take cards", "🐕 Dogs welcome", "🥨 Food trucks all day", "🚲 Bike parking at the entrance"],
  },
  festival: {
    startMinutes: 14 * 60, durationMinutes: 57 * 60, weekday: 5, hasTickets: true, responded: [900, 6800],
    notes: ["🎪 Weekend and day passes available", "🌧️ Happens rain or shine", "♻️ Bring a reusable cup", "🗺️ Site map in the app"],
  },
  workshop: {
    startMinutes: 10 * 60, durationMinutes: 240, weekday: 6, hasTickets: true, responded: [12, 90],
    notes: ["✏️ All materials provided", "👥 Max. 12 participants", "☕ Coffee and snacks included"],
  },
  run: {
    startMinutes: 8 * 60, durationMinutes: 180, weekday: 0, hasTickets: true, responded: [200, 2400],
    notes: ["🏃 Start numbers from 7 AM at the tent", "🎽 Finisher shirt for everyone", "🚻 Toilets and bag drop at the start"],
  },
  exhibition: {
    startMinutes: 10 * 60, durationMinutes: 480, hasTickets: false, responded: [60, 1800],
    notes: ["🖼️ Free guided tour at 3 PM", "👶 Family-friendly", "📸 Photography without flash allowed"],
  },
  talk: {
    startMinutes: 19 * 60, durationMinutes: 120, hasTickets: false, responded: [30, 650],
    notes: ["🎙️ Followed by a Q&A", "🍷 Bar open before and after", "🪑 Free entry, first come first seated"],
  },
};

type EventSpec = {
  title: string;
  venue: VenueKey;
  kind: Kind;
  hosts: string[];
  tags: string[];
  blurb: string;
  /** Formal listings (orchestras, opera houses) come without emoji and hashtags. */
  formal?: boolean;
};

// Index i is event 10000000000000(i+1). Acts are fictional; venues, addresses and coordinates real.
const EVENT_SPECS: readonly EventSpec[] = [
  { title: "Berlin JS Meetup #112: Edge Runtimes in Practice", venue: "factory", kind: "meetup", hosts: ["berlinjs"], tags: ["javascript", "webdev"], blurb: "Three short talks on running TypeScript at the edge: cold starts, streaming responses and what breaks when there is no filesystem." },
  { title: "Nachtschicht — Live at Tempodrom", venue: "tempodrom", kind: "concert", hosts: ["tempodrom.berlin", "nachtschicht.music"], tags: ["electronic", "live"], blurb: "The Leipzig duo brings its new audiovisual show to Berlin for one night only." },
  { title: "Mauerpark Flea Market & Open-Air Karaoke", venue: "mauerpark", kind: "market", hosts: ["mauerpark.flohmarkt"], tags: ["market", "vintage"], blurb: "Over 300 stalls of vintage clothes, vinyl and furniture, plus the legendary open-air karaoke in the amphitheatre from 3 PM." },
  { title: "Tempelhof Sunrise 10K", venue: "tempelhof", kind: "run", hosts: ["berlinrunners", "tempelhoferfeld"], tags: ["running"], blurb: "A flat, fast 10K loop on the old runways. All paces welcome, with pacers for 45, 50 and 60 minutes." },
  { title: "Brahms: Symphony No. 4 — NDR Elbphilharmonie Orchester", venue: "elbphilharmonie", kind: "concert", hosts: ["elbphilharmonie"], tags: ["classical"], blurb: "An evening of Brahms and Schumann in the Grand Hall.", formal: true },
  { title: "Paradiso Nachtbar: Warm-Up Night", venue: "paradiso", kind: "club", hosts: ["paradisoadam"], tags: ["techno", "club"], blurb: "Five DJs, two rooms, one long night in the old church." },
  { title: "Open Mic Poetry Night", venue: "melkweg", kind: "talk", hosts: ["melkweg.amsterdam", "amsterdampoetryclub"], tags: ["poetry", "openmic"], blurb: "Sign up at the door from 6:30 PM; five minutes each, English and Dutch welcome. We go on until the last poet has spoken." },
  { title: "Barbican: Sound & Light Installations", venue: "barbican", kind: "exhibition", hosts: ["barbicancentre"], tags: ["art", "installation"], blurb: "Immersive installations, live scores and a late bar across the Conservatory and The Curve." },
  { title: "London Design Meetup: Accessible Interfaces", venue: "southbank", kind: "meetup", hosts: ["londondesignmeetup"], tags: ["design", "accessibility"], blurb: "Practical talks on screen-reader testing, focus management and writing alt text that actually helps." },
  { title: "Roundhouse Rising Festival", venue: "roundhouse", kind: "festival", hosts: ["roundhouse"], tags: ["festival", "newmusic"], blurb: "Three days of emerging artists across the Main Space, the Sackler Space and the bar stage." },
  { title: "Indie Nights Vol. 7: The Velvet Harbour + Les Lunes", venue: "bataclan", kind: "concert", hosts: ["bataclan.paris"], tags: [], blurb: "Dreamy guitar pop from Bristol, with Parisian openers Les Lunes." },
  { title: "Jazz à la Philharmonie: Nordlicht Quartet", venue: "philharmonie", kind: "concert", hosts: ["philharmoniedeparis"], tags: ["jazz"], blurb: "The Oslo quartet performs its album Polar Night in full, with guest trumpeter Ingrid Solberg.", formal: true },
  { title: "Sala Apolo: Summer Closing Party", venue: "apolo", kind: "club", hosts: ["salaapolo"], tags: ["club", "barcelona"], blurb: "Due to building works in the main hall this party is cancelled. Tickets are refunded automatically." },
  { title: "CCCB Talks: Cities After the Car", venue: "cccb", kind: "talk", hosts: ["cccb.barcelona"], tags: ["urbanism", "talk"], blurb: "Urban planners from Barcelona, Paris and Utrecht on superblocks, school streets and what comes next." },
  { title: "Vienna Coffee Festival", venue: "museumsquartier", kind: "festival", hosts: ["viennacoffeefestival", "museumsquartier"], tags: ["coffee", "food"], blurb: "Roasters from twelve countries, a latte-art championship and brewing workshops in the MQ courtyards." },
  { title: "Midnight Arcade + Soft Static", venue: "brooklynSteel", kind: "concert", hosts: ["brooklynsteel"], tags: ["synthpop", "live"], blurb: "A double bill of neon synth-pop. All ages." },
  { title: "NYC Product Summit", venue: "javits", kind: "conference", hosts: ["nycproductsummit"], tags: ["product", "conference"], blurb: "Two days of talks and workshops for product managers, designers and engineers." },
  { title: "The Fillmore Presents: Desert Bloom", venue: "fillmore", kind: "concert", hosts: ["thefillmore"], tags: ["psychrock"], blurb: "Psychedelic desert rock from Tucson. Posters for the first 500 through the door, as tradition demands." },
  { title: "Cloud Native Days San Francisco", venue: "moscone", kind: "conference", hosts: ["cloudnativesf"], tags: ["cloud", "kubernetes"], blurb: "Hands-on labs, maintainer office hours and 60+ talks on running software in production." },
  { title: "Chicago House Sessions", venue: "metro", kind: "club", hosts: ["metrochicago", "smartbarchicago"], tags: ["house", "club"], blurb: "Celebrating the city that built house music, with three resident DJs until close." },
  { title: "Tokyo Game Creators Conference", venue: "tokyoForum", kind: "conference", hosts: ["tokyogamecreators"], tags: ["gamedev", "conference"], blurb: "Postmortems, indie showcases and a portfolio review corner. Talks in Japanese with English interpretation." },
  { title: "Harbour Lights: Sydney Symphony at the Opera House", venue: "sydneyOpera", kind: "concert", hosts: ["sydneyoperahouse"], tags: ["classical", "orchestra"], blurb: "Sibelius, Sculthorpe and a new commission for orchestra and harbour soundscape.", formal: true },
  { title: "Gala Flamenco: Noches de Price", venue: "circoPrice", kind: "concert", hosts: ["teatrocircoprice"], tags: ["flamenco", "dance"], blurb: "Guitar, cante and baile from three generations of flamenco families." },
  { title: "Utrecht Indie Comics Fair", venue: "tivoli", kind: "market", hosts: ["tivolivredenburg", "utrechtcomics"], tags: ["comics", "zines"], blurb: "Sixty independent artists, risograph zines and live drawing sessions." },
  { title: "Vinyl & Record Fair at Kulturbrauerei", venue: "kulturbrauerei", kind: "market", hosts: ["kulturbrauerei"], tags: ["vinyl", "market"], blurb: "Dealers from all over Europe: soul, jazz, krautrock and rare 7-inches. Bring your crate." },
  { title: "Street Portrait Photography Workshop", venue: "factory", kind: "workshop", hosts: ["berlinphotowalks"], tags: ["photography", "workshop"], blurb: "A morning of theory, then out onto the streets of Kreuzberg. Bring any camera; phones are fine." },
  { title: "Organ Night: Bach to Glass", venue: "elbphilharmonie", kind: "concert", hosts: ["elbphilharmonie"], tags: ["classical", "organ"], blurb: "Toccatas, chorales and minimalism on the 4,765 pipes of the Grand Hall organ.", formal: true },
  { title: "Amsterdam Python Meetup: Data Pipelines That Don't Break", venue: "melkweg", kind: "meetup", hosts: ["pyamsterdam"], tags: ["python", "data"], blurb: "Talks on data contracts, backfills and testing DAGs, followed by drinks in the foyer." },
  { title: "Hayward Gallery: Light Years", venue: "southbank", kind: "exhibition", hosts: ["southbankcentre", "haywardgallery"], tags: ["art", "exhibition"], blurb: "Forty years of light art, from neon and lasers to slow-moving shadow rooms." },
  { title: "Ciutadella Park Run 5K", venue: "ciutadella", kind: "run", hosts: ["barcelonarunners"], tags: ["running", "outdoor"], blurb: "Two laps around the park and past the Cascada fountain. Free, timed and friendly." },
  { title: "Ceramics for Beginners: Wheel Throwing", venue: "museumsquartier", kind: "workshop", hosts: ["mq.workshops"], tags: ["ceramics", "workshop"], blurb: "Centre the clay, pull your first walls and leave with two pieces ready for the kiln." },
  { title: "Barbican Talks: The Future of Libraries", venue: "barbican", kind: "talk", hosts: ["barbicancentre"], tags: [], blurb: "Librarians, architects and a novelist on what public libraries are for in the 2030s." },
  { title: "Roundhouse Presents: Aurora Lane", venue: "roundhouse", kind: "concert", hosts: ["roundhouse", "auroralane"], tags: ["indie", "live"], blurb: "The Glasgow songwriter's biggest headline show so far, with a string quartet." },
  { title: "Chicago TypeScript Meetup: Strictness at Scale", venue: "hub1871", kind: "meetup", hosts: ["chicagots"], tags: ["typescript", "webdev"], blurb: "Migrating a 2-million-line codebase to strict mode, one directory at a time." },
  { title: "Tempelhof Kite & Skate Festival", venue: "tempelhof", kind: "festival", hosts: ["tempelhoferfeld"], tags: ["outdoor", "festival"], blurb: "Kite-surfing on wheels, skate ramps on the runway and a kids' kite workshop." },
  { title: "Sala Apolo: Disco Fever", venue: "apolo", kind: "club", hosts: ["salaapolo"], tags: ["disco", "club"], blurb: "Seventies and eighties disco under the mirror ball of the old dance hall." },
  { title: "Tokyo Design Week Showcase", venue: "tokyoForum", kind: "exhibition", hosts: ["tokyodesignweek"], tags: ["design", "exhibition"], blurb: "Furniture, product and graphic design from 80 studios, in the glass hall." },
  { title: "Sydney Writers' Talk: Fiction in the Age of Feeds", venue: "sydneyOpera", kind: "talk", hosts: ["sydneyoperahouse", "sydneywriters"], tags: ["books", "talk"], blurb: "Three novelists on attention, serial storytelling and writing for readers who scroll." },
  { title: "Matadero Vintage Market", venue: "matadero", kind: "market", hosts: ["mataderomadrid"], tags: ["vintage", "market"], blurb: "Second-hand fashion, design objects and vermut in the old slaughterhouse halls." },
  { title: "OWASP Berlin: AppSec Night — XSS & <Safe> Rendering", venue: "factory", kind: "meetup", hosts: ["owaspberlin"], tags: ["security", "appsec"], blurb: "How cross-site scripting still gets through modern frameworks, and how to test for it." },
];

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

const generateEvents = (publicUrl: string): EventRecord[] => {
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
    const zone = zoneAbbreviation(venue.zone, startDay);
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

// ---------------------------------------------------------------------------------------------
// Pin-board followers

const FIRST_NAMES = [
  "Emma", "Liam", "Olivia", "Noah", "Sofia", "Mateo", "Lucía", "Hugo", "Chloé", "Léa",
  "Jonas", "Hannah", "Finn", "Mia", "Lukas", "Anna", "Zoë", "José", "Inês", "João",
  "Giulia", "Luca", "Aarav", "Priya", "Ananya", "Wei", "Mei", "Hiroshi", "Yuki", "Sakura",
  "Min-jun", "Seo-yeon", "Kwame", "Amara", "Ngozi", "Thandiwe", "Sipho", "Fatima", "Omar", "Layla",
  "Elif", "Mehmet", "Çağla", "Nikolai", "Anya", "Łukasz", "Małgorzata", "Søren", "Astrid", "Björn",
  "Freya", "Jürgen", "Renée", "Tomás", "Zoltán", "Dagný", "Camila", "Diego", "Valentina", "Santiago",
  "Charlotte", "Oliver", "Amelia", "Jack", "Isla", "Kai", "Leilani", "Maya", "Noor", "Yusuf",
] as const;

const LAST_NAMES = [
  "Muñoz", "García", "Fernández", "Müller", "Schmidt", "Becker", "Nowak", "Kowalski", "Jensen", "Andersson",
  "Bergström", "Rossi", "Bianchi", "Dubois", "Lefèvre", "Martin", "Smith", "Johnson", "Williams", "Brown",
  "Nguyen", "Tanaka", "Suzuki", "Kim", "Park", "Patel", "Sharma", "Okafor", "Mensah", "Yılmaz",
  "Öztürk", "Ivanova", "Petrov", "Silva", "Santos", "O'Brien", "Murphy", "Novák", "Horváth", "Dvořák",
  "Ødegaard", "Sánchez", "Wang", "Li", "Zhang", "Haddad", "Cohen", "Levi", "van der Berg", "De Luca",
] as const;

// Hand-picked names up front, so the first page of the big list shows the tricky cases.
const FEATURED_FOLLOWERS: Record<string, readonly string[]> = {
  "2000000001": ["José Muñoz", "Zoë", "Łukasz Nowak", "Chloé Lefèvre", "Søren Ødegaard", "Çağla Yılmaz", "王芳", "Maya 🌿", "Renée O'Brien"],
  "2000000002": ["Zoë Becker", "Dagný Jónsdóttir", "Tomás Ó Súilleabháin"],
};

// Letters that NFD does not split into base + accent.
const ASCII_FOLDS: Record<string, string> = { ł: "l", ø: "o", ß: "ss", æ: "ae", đ: "d", ı: "i", þ: "th", ð: "d" };

const asciiSlug = (text: string): string =>
  text
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[łøßæđıþð]/g, (letter) => ASCII_FOLDS[letter] ?? "")
    .replace(/[^a-z0-9 ]/g, "")
    .trim();

const usernameFor = (fullName: string, entityId: string, rng: Rng, taken: Set<string>): string => {
  const words = asciiSlug(fullName).split(/\s+/).filter((word) => word !== "");
  const first = words[0];
  const last = words[words.length - 1];
  let base: string;
  if (first === undefined || last === undefined) {
    base = `user${entityId.slice(-7)}`;
  } else {
    const style = rng.int(0, 4);
    base =
      style === 0 ? `${first}${last === first ? "" : last}`
      : style === 1 ? `${first}_${last}`
      : style === 2 ? `${first}${last.slice(0, 1)}${rng.int(1, 99)}`
      : style === 3 ? `${first}${rng.int(1970, 2008)}`
      : `${last}${first.slice(0, 1)}`;
  }
  let username = base;
  for (let suffix = 2; taken.has(username); suffix += 1) username = `${base}${suffix}`;
  taken.add(username);
  return username;
};

// Entity ids climb from here in random steps: 16 digits, unique, and below 2^53 so plain number
// arithmetic stays exact.
const ENTITY_ID_BASE = 5_100_000_000_000_000;
const AVATAR_COUNT = 24;

const generateFollowerLists = (publicUrl: string): FollowerList[] => {
  const rng = createRng(SEEDS.followers);
  const takenUsernames = new Set<string>();
  let nextEntityId = ENTITY_ID_BASE;

  const follower = (fullName: string, forcePublic: boolean): FollowerEntry => {
    nextEntityId += rng.int(1, 40_000_000);
    const entityId = String(nextEntityId);
    const isPrivateProfile = !forcePublic && rng.chance(0.1);
    const avatar = rng.chance(0.15) ? "default" : String(rng.int(1, AVATAR_COUNT));
    const imageUrl = isPrivateProfile ? null : `${publicUrl}/demo/avatars/${avatar}.svg`;
    return {
      node: {
        username: usernameFor(fullName, entityId, rng, takenUsernames),
        status: "ok",
        fullName,
        imageMediumUrl: imageUrl,
        imageXlargeUrl: imageUrl,
        entityId,
        isPrivateProfile,
        verifiedIdentity: isPrivateProfile ? null : { verified: null },
        id: nodeIdFor(entityId),
        __typename: "User",
      },
      cursor: null,
    };
  };

  return demoFixtures.pinUsers.map(({ userid, followerCount }) => {
    const featured = FEATURED_FOLLOWERS[userid] ?? [];
    const followers = Array.from({ length: followerCount }, (_, position) => {
      const featuredName = featured[position];
      if (featuredName !== undefined) return follower(featuredName, position === 0);
      // Some people show only a first name, as on the real site.
      const fullName = rng.chance(0.08)
        ? rng.pick(FIRST_NAMES)
        : `${rng.pick(FIRST_NAMES)} ${rng.pick(LAST_NAMES)}`;
      return follower(fullName, false);
    });
    return { userid, followers };
  });
};

// ---------------------------------------------------------------------------------------------
// Publications

const SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

type Publisher = { name: string; url: (slug: string, day: CalendarDay, author: string, rng: Rng) => string };

const hex = (rng: Rng, length: number) =>
  Array.from({ length }, () => "0123456789abcdef".charAt(rng.int(0, 15))).join("");

const PUBLISHERS: readonly Publisher[] = [
  { name: "InfoQ", url: (slug) => `https://www.infoq.com/articles/${slug}/` },
  { name: "ACM Queue", url: (_slug, _day, _author, rng) => `https://queue.acm.org/detail.cfm?id=${rng.int(3_400_000, 3_799_999)}` },
  { name: "Harvard Business Review", url: (slug, day) => `https://hbr.org/${day.year}/${pad2(day.month)}/${slug}` },
  { name: "Medium", url: (slug, _day, author, rng) => `https://medium.com/@${author.replace("-", ".")}/${slug}-${hex(rng, 12)}` },
  { name: "Towards Data Science", url: (slug, _day, _author, rng) => `https://towardsdatascience.com/${slug}-${hex(rng, 12)}` },
  { name: "The New Stack", url: (slug) => `https://thenewstack.io/${slug}/` },
  { name: "IEEE Software", url: (_slug, _day, _author, rng) => `https://ieeexplore.ieee.org/document/${rng.int(10_000_000, 10_999_999)}` },
  { name: "Smashing Magazine", url: (slug, day) => `https://www.smashingmagazine.com/${day.year}/${pad2(day.month)}/${slug}/` },
  { name: "Communications of the ACM", url: (slug) => `https://cacm.acm.org/research/${slug}/` },
  { name: "LinkedIn", url: (slug, _day, author) => `https://www.linkedin.com/pulse/${slug}-${author}/` },
];

/** URL handles of the demo profiles' authors, by urn (the records themselves carry no author). */
const AUTHORS: Record<string, string> = {
  "urn:li:member:3000000001": "amara-okafor",
  "urn:li:member:3000000002": "lukas-weber",
};

const TOPICS = [
  "Event-Driven Architecture", "Rate Limiting", "Zero-Downtime Migrations", "Observability", "Feature Flags",
  "Data Contracts", "PostgreSQL Partitioning", "Edge Caching", "API Versioning", "Incident Reviews",
  "Technical Debt Budgets", "Remote Engineering", "Accessibility Testing", "Privacy by Design", "LLM Evaluation",
  "Search Relevance", "Idempotent Payments", "Offline-First Mobile Apps", "Design Systems", "Cost-Aware Cloud Design",
] as const;

const AUDIENCES = ["Product Teams", "Startups", "Platform Engineers", "Engineering Managers", "Data Scientists", "Designers"] as const;

const TITLE_PATTERNS: readonly ((topic: string, audience: string) => string)[] = [
  (topic) => `${topic}: A Practical Guide`,
  (topic, audience) => `Why ${topic} Matters for ${audience}`,
  (topic) => `Lessons Learned from Five Years of ${topic}`,
  (topic) => `${topic} Without the Hype`,
  (topic, audience) => `${topic} for ${audience}: What Actually Works`,
  (topic) => `The Hidden Costs of ${topic}`,
  (topic) => `A Field Guide to ${topic}`,
];

const TAKEAWAYS = [
  "measure before you optimise",
  "make the safe path the easy path",
  "write the rollback plan first",
  "small batches beat big launches",
  "own the interface, not the implementation",
  "alerts should page humans only for humans' problems",
  "document decisions where the code lives",
  "test with real users early",
] as const;

const SUMMARIES: readonly ((topic: string) => string)[] = [
  (topic) => `An essay on ${topic}, drawn from production experience and written for practitioners.`,
  (topic) => `A case study of ${topic} at a 200-person scale-up, with the numbers before and after.`,
  (topic) => `What we got wrong about ${topic}, and the checklist we use now.`,
  (topic) => `Adapted from my conference talk: ${topic} from first principles, with worked examples.`,
  (topic) => `Conversations with three teams who adopted ${topic} in the last year, and what they would do differently.`,
];

/** "Feature Flags" → "feature flags" mid-sentence, but "LLM" and "PostgreSQL" keep their capitals. */
const inSentence = (topic: string) =>
  topic
    .split(" ")
    .map((word) => word.split("-").map((part) => (/[A-Z]/.test(part.slice(1)) ? part : part.toLowerCase())).join("-"))
    .join(" ");

const slugOf = (title: string) =>
  asciiSlug(title.replace(/[-:]/g, " ")).split(/\s+/).filter((word) => word !== "").join("-");

const publicationDate = (day: CalendarDay) => `${at(SHORT_MONTHS, day.month - 1)} ${day.day}, ${day.year}`;

const generatePublicationLists = (): PublicationList[] => {
  const rng = createRng(SEEDS.publications);
  const usedTitles = new Set<string>();

  const uniqueTitle = (): { title: string; topic: string } => {
    for (;;) {
      const topic = rng.pick(TOPICS);
      const title = rng.pick(TITLE_PATTERNS)(topic, rng.pick(AUDIENCES));
      if (!usedTitles.has(title)) {
        usedTitles.add(title);
        return { title, topic };
      }
    }
  };

  const description = (topic: string, publisher: string): string => {
    const summary = rng.pick(SUMMARIES)(inSentence(topic));
    if (!rng.chance(0.4)) return `${summary} Published in ${publisher}.`;
    const points = rng.shuffled(TAKEAWAYS).slice(0, rng.int(2, 3));
    return `${summary}\n\nKey takeaways:\n${points.map((point) => `• ${point}`).join("\n")}`;
  };

  return demoFixtures.profiles.map(({ urn, publicationCount }) => {
    // Newest first, as profiles list them, stepping back a few weeks per publication.
    let dayNumber = dayNumberOf(2025, 12, 1);
    const publications = Array.from({ length: publicationCount }, (): Publication => {
      dayNumber -= rng.int(12, 45);
      const day = calendarDay(dayNumber);
      const { title, topic } = uniqueTitle();
      const publisher = rng.pick(PUBLISHERS);
      return {
        title,
        publication: publisher.name,
        description: description(topic, publisher.name),
        date: publicationDate(day),
        publication_url: publisher.url(slugOf(title), day, AUTHORS[urn] ?? "author", rng),
      };
    });
    return { urn, publications };
  });
};

// ---------------------------------------------------------------------------------------------

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
