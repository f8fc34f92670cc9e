import { memo, useState } from "react";
import { Badge } from "@/components/ui/badge";
import { cx } from "@/components/ui/class-names";
import { Icon } from "@/components/ui/icon";
import type { FollowerEntry } from "@/lib/query/followers";

type FollowerNode = FollowerEntry["node"];

/** Only http(s) images: a record's URL is third-party data and never a `javascript:` or `data:` source. */
const imageUrl = (url: string | null): string | null => {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
};

const segmenter = typeof Intl.Segmenter === "function" ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;

/** First user-perceived character (an emoji or an accented letter stays whole), upper-cased. */
export const initialOf = (name: string): string => {
  const trimmed = name.trim();
  if (trimmed === "") return "?";
  const first = segmenter ? segmenter.segment(trimmed)[Symbol.iterator]().next().value?.segment : Array.from(trimmed)[0];
  return (first ?? "?").toLocaleUpperCase();
};

// Token-based tints so the placeholder works in light and dark mode alike.
const PLACEHOLDER_TINTS = [
  "bg-accent-soft text-accent-soft-foreground",
  "bg-success-soft text-success",
  "bg-warning-soft text-warning",
  "bg-danger-soft text-danger",
  "bg-surface-muted text-muted",
] as const;

const tintFor = (entityId: string): string => {
  let sum = 0;
  for (const digit of entityId.slice(-6)) sum += digit.charCodeAt(0);
  return PLACEHOLDER_TINTS[sum % PLACEHOLDER_TINTS.length] ?? PLACEHOLDER_TINTS[0];
};

function Avatar({ node }: { node: FollowerNode }) {
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const src = imageUrl(node.imageMediumUrl);
  if (src && src !== failedSrc) {
    return (
      // A plain img: third-party avatar hosts are not known to the Next image optimiser.
      <img
        src={src}
        alt=""
        width={40}
        height={40}
        loading="lazy"
        decoding="async"
        referrerPolicy="no-referrer"
        onError={() => setFailedSrc(src)}
        className="size-10 shrink-0 rounded-full bg-surface-muted object-cover ring-1 ring-border"
      />
    );
  }
  return (
    <span
      aria-hidden="true"
      data-avatar-placeholder=""
      className={cx(
        "grid size-10 shrink-0 place-items-center rounded-full text-sm font-semibold ring-1 ring-border select-none",
        tintFor(node.entityId),
      )}
    >
      {initialOf(node.fullName)}
    </span>
  );
}

export type FollowerRowProps = {
  node: FollowerNode;
  /** 1-based position in the list, for assistive tech (only a window of rows is in the DOM). */
  position: number;
  /** List length for assistive tech; -1 while the total is unknown. */
  setSize: number;
  /** Offset from the top of the list in px, from the virtualiser. */
  start: number;
  heightPx: number;
};

/** One follower: avatar (or an initial for private/no image), full name, @username, marks. */
export const FollowerRow = memo(function FollowerRow({ node, position, setSize, start, heightPx }: FollowerRowProps) {
  const verified = node.verifiedIdentity?.verified === true;
  return (
    <li
      data-testid="follower-row"
      data-entity-id={node.entityId}
      aria-posinset={position}
      aria-setsize={setSize}
      style={{ height: heightPx, transform: `translateY(${start}px)` }}
      className="absolute top-0 left-0 flex h-16 w-full items-center gap-3 border-b border-border px-4"
    >
      <Avatar node={node} />
      <div className="flex min-w-0 flex-1 flex-col">
        <span className="truncate text-sm font-medium text-foreground" title={node.fullName}>
          {node.fullName || <span className="text-muted italic">No name</span>}
        </span>
        <span className="truncate text-xs text-muted" title={`@${node.username}`}>
          @{node.username}
        </span>
      </div>
      <div className="flex shrink-0 items-center gap-1.5">
        {node.isPrivateProfile ? (
          <Badge variant="neutral" title="Private profile: no image, no verification status">
            <Icon name="lock" className="size-3" />
            Private
          </Badge>
        ) : null}
        {verified ? (
          <Badge variant="success" title="Verified identity">
            <Icon name="check" className="size-3" />
            Verified
          </Badge>
        ) : null}
      </div>
    </li>
  );
});
