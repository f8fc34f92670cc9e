"use client";

import { useState, type MouseEvent, type ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardFooter } from "@/components/ui/card";
import { cx } from "@/components/ui/class-names";
import type { EventRecord } from "@/lib/records/records";
import { eventsPageHref } from "@/lib/query/events";
import { RichText } from "./rich-text";

/**
 * One event as the console shows it. Everything from the record is React text (no HTML), links
 * are built here from known parts (map from lat/lng, related events inside the console), and the
 * cover keeps its box while loading so nothing below it moves.
 */
export type EventCardProps = {
  event: EventRecord;
  /** The app's public origin: its own images are loaded from wherever the browser reached it. */
  publicOrigin?: string;
  /** Opens a related event on this page; without it the links navigate normally. */
  onOpenRelated?: (eventId: string) => void;
  footer?: ReactNode;
};

const COVER_WIDTH = 1200;
const COVER_HEIGHT = 630;

const numberFormat = new Intl.NumberFormat("en-US");

export const mapUrl = (lat: number, lng: number): string =>
  `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lng}#map=16/${lat}/${lng}`;

/** An http(s) image URL; one on the app's own public origin becomes a path, others stay as they are. */
export const coverSource = (url: string, publicOrigin: string | undefined): string | null => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
  if (publicOrigin && parsed.origin === publicOrigin) return `${parsed.pathname}${parsed.search}`;
  return parsed.href;
};

const hhmm = (time: string) => time.slice(0, 5);

function Cover({ url, title, publicOrigin }: { url: string; title: string; publicOrigin: string | undefined }) {
  const [failed, setFailed] = useState(false);
  const source = coverSource(url, publicOrigin);
  const frame = "block aspect-[1200/630] w-full rounded-t-xl bg-surface-muted";
  if (!source || failed) {
    return (
      <div className={cx(frame, "grid place-items-center text-sm text-muted")} data-testid="event-cover-missing">
        No cover image
      </div>
    );
  }
  return (
    // A plain <img>: covers come from anywhere; width/height reserve the box before it loads.
    <img
      src={source}
      alt={`Cover image of ${title}`}
      width={COVER_WIDTH}
      height={COVER_HEIGHT}
      decoding="async"
      fetchPriority="high"
      referrerPolicy="no-referrer"
      onError={() => setFailed(true)}
      className={cx(frame, "h-auto object-cover")}
      data-testid="event-cover"
    />
  );
}

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="flex min-w-0 flex-col gap-0.5">
      <dt className="text-xs font-medium tracking-wide text-muted uppercase">{term}</dt>
      <dd className="min-w-0 text-sm text-foreground">{children}</dd>
    </div>
  );
}

const isPlainClick = (click: MouseEvent<HTMLAnchorElement>) =>
  click.button === 0 && !click.metaKey && !click.ctrlKey && !click.shiftKey && !click.altKey;

export function EventCard({ event, publicOrigin, onOpenRelated, footer }: EventCardProps) {
  const ends =
    event.end_time === null
      ? "no end time given"
      : `${event.end_date === event.start_date ? "" : `${event.end_date} `}${hhmm(event.end_time)}`;

  return (
    <Card data-testid="event-card" data-event-id={event.event_id} className="overflow-hidden">
      <Cover url={event.cover_image_url} title={event.title} publicOrigin={publicOrigin} />
      <CardContent className="flex flex-col gap-5">
        <header className="flex flex-col gap-2">
          <div className="flex flex-wrap items-center gap-2">
            {event.is_canceled ? (
              <Badge variant="danger" data-testid="event-canceled">
                Canceled
              </Badge>
            ) : null}
            <Badge variant="neutral" className="font-mono">
              Event {event.event_id}
            </Badge>
          </div>
          <h2
            className={cx("text-xl font-semibold tracking-tight break-words sm:text-2xl", event.is_canceled && "text-muted")}
            data-testid="event-title"
          >
            {event.title}
          </h2>
          <p className="text-sm font-medium text-foreground" data-testid="event-time">
            {event.local_formatted_time}
          </p>
          <p className="text-xs text-muted tabular-nums">
            Starts {event.start_date} {hhmm(event.start_time)} · Ends {ends}
          </p>
        </header>

        <dl className="grid gap-4 sm:grid-cols-2">
          <Fact term="Location">
            <span className="block break-words" data-testid="event-location">
              {event.location_text}
            </span>
            {event.location_from_details.contextual_name ? (
              <span className="block text-muted">{event.location_from_details.contextual_name}</span>
            ) : null}
            <a
              href={mapUrl(event.lat, event.lng)}
              target="_blank"
              rel="noopener noreferrer"
              className="mt-1 inline-block font-medium text-accent underline-offset-2 hover:underline"
              data-testid="event-map-link"
            >
              Open in OpenStreetMap<span className="sr-only"> (opens in a new tab)</span>
            </a>
          </Fact>
          <Fact term="Hosts">
            {event.hosts.length === 0 ? (
              <span className="text-muted">None listed</span>
            ) : (
              <ul className="flex flex-wrap gap-1.5" data-testid="event-hosts">
                {event.hosts.map((host) => (
                  <li key={host}>
                    <Badge variant="accent">@{host}</Badge>
                  </li>
                ))}
              </ul>
            )}
          </Fact>
          <Fact term="Responded">
            <span className="tabular-nums" data-testid="event-responded">
              {numberFormat.format(event.responded_count)} {event.responded_count === 1 ? "person" : "people"}
            </span>
          </Fact>
          {event.tags.length > 0 ? (
            <Fact term="Tags">
              <ul className="flex flex-wrap gap-1.5">
                {event.tags.map((tag) => (
                  <li key={tag}>
                    <Badge>{tag}</Badge>
                  </li>
                ))}
              </ul>
            </Fact>
          ) : null}
        </dl>

        <section aria-labelledby={`details-${event.event_id}`} className="flex flex-col gap-2">
          <h3 id={`details-${event.event_id}`} className="text-sm font-semibold">
            Details
          </h3>
          <p className="text-sm leading-relaxed break-words whitespace-pre-line text-foreground" data-testid="event-details">
            <RichText text={event.details} />
          </p>
        </section>

        {event.related_events.length > 0 ? (
          <section aria-labelledby={`related-${event.event_id}`} className="flex flex-col gap-2">
            <h3 id={`related-${event.event_id}`} className="text-sm font-semibold">
              Related events
            </h3>
            <ul className="flex flex-col gap-1">
              {event.related_events.map((related) => (
                <li key={related.event_id}>
                  <a
                    href={eventsPageHref(related.event_id)}
                    onClick={(click) => {
                      if (!onOpenRelated || !isPlainClick(click)) return;
                      click.preventDefault();
                      onOpenRelated(related.event_id);
                    }}
                    className="group inline-flex max-w-full items-baseline gap-2 rounded-md text-sm"
                    data-testid={`related-event-${related.event_id}`}
                  >
                    <span className="truncate font-medium text-accent underline-offset-2 group-hover:underline">
                      {related.title}
                    </span>
                    <span className="shrink-0 font-mono text-xs text-muted">{related.event_id}</span>
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </CardContent>
      {footer ? <CardFooter className="flex-wrap justify-between text-xs text-muted">{footer}</CardFooter> : null}
    </Card>
  );
}

/** The card's shape while a lookup runs: same cover box and rhythm, so the card lands without a jump. */
export function EventCardSkeleton() {
  return (
    <Card aria-busy="true" aria-label="Loading event" data-testid="event-card-skeleton" className="overflow-hidden">
      <div className="aspect-[1200/630] w-full animate-pulse bg-surface-muted" />
      <CardContent className="flex flex-col gap-4">
        <div className="h-5 w-24 animate-pulse rounded bg-surface-muted" />
        <div className="h-7 w-3/4 animate-pulse rounded bg-surface-muted" />
        <div className="h-4 w-1/2 animate-pulse rounded bg-surface-muted" />
        <div className="grid gap-4 sm:grid-cols-2">
          <div className="h-14 animate-pulse rounded bg-surface-muted" />
          <div className="h-14 animate-pulse rounded bg-surface-muted" />
        </div>
        <div className="h-24 animate-pulse rounded bg-surface-muted" />
      </CardContent>
    </Card>
  );
}
