import type { VenueKey } from "./venues";

// What the demo events are: kinds of event with their usual times and notes, and the 40 listings.

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

export const KINDS: Record<Kind, KindProfile> = {
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

export type EventSpec = {
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
export const EVENT_SPECS: readonly EventSpec[] = [
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
