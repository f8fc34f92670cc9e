import type { JsonObject } from "@/lib/records/json";

/** The event both event operations show in OpenAPI (the demo data's first event). */
export const exampleEventDetails: JsonObject = {
  event: {
    stats: "ok",
    event_id: "1000000000000001",
    start_date: "2025-06-14",
    start_time: "18:00:00",
    end_date: "2025-06-14",
    end_time: "22:00:00",
    local_formatted_time: "Saturday, June 14, 2025 at 6:00 PM – 10:00 PM CEST",
    title: "Riverside Jazz Night",
    location_text: "Harbour Hall, Hamburg",
    lat: 53.5438,
    lng: 9.9661,
    details: "Live jazz by the river.\nDoors open at 17:30 🎷 #jazz #livemusic",
    source: "demo",
    tags: [],
    has_tickets: null,
    hosts: ["riverside.events"],
    related_events: [
      {
        event_id: "1000000000000002",
        url: "https://events.demo.test/events/1000000000000002/",
        title: "Riverside Blues Night",
      },
    ],
    responded_count: 312,
    cover_image_url: "https://images.demo.test/events/1000000000000001/cover.jpg",
    location_place: null,
    location_from_details: { name: "Harbour Hall", contextual_name: "Harbour Hall, Hamburg" },
    is_canceled: false,
  },
};
