import type { FollowerEntry } from "@/lib/records/records";
import { nodeIdFor } from "@/lib/records/node-id";
import type { FollowerList } from "@/lib/connectors/store-records";
import { demoFixtures } from "./fixtures";
import { createRng, SEEDS, type Rng } from "./rng";
import { asciiSlug } from "./text";

/** The demo pin-board follower lists: names from many languages, usernames, avatars, private profiles. */
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

export const generateFollowerLists = (publicUrl: string): FollowerList[] => {
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
