import { ZONES, type DemoZone } from "./zones";

/** Venues of the demo events: real places, coordinates of the building or park, and their time zone. */
export type Venue = {
  name: string;
  street: string;
  city: string;
  country: string;
  lat: number;
  lng: number;
  zone: DemoZone;
};

export const VENUES = {
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

export type VenueKey = keyof typeof VENUES;
