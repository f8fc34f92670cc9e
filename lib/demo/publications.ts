import type { Publication } from "@/lib/records/records";
import type { PublicationList } from "@/lib/connectors/store-records";
import { calendarDay, dayNumberOf, pad2, type CalendarDay } from "./calendar";
import { demoFixtures } from "./fixtures";
import { at, createRng, SEEDS, type Rng } from "./rng";
import { asciiSlug } from "./text";

/** The demo publication lists: articles with publishers, dates, URLs and descriptions. */
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

export const generatePublicationLists = (): PublicationList[] => {
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
