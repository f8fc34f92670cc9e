/**
 * The console's small icons, one path each, drawn in the text colour. They are decorative: the
 * text beside them says the same, so assistive tech skips them.
 */

/** 16×16, outlined. */
const outlineIcons = {
  check: { d: "m3.5 8.5 3 3 6-7", strokeWidth: "2", round: true },
  download: { d: "M8 2.5v8m0 0 3-3m-3 3-3-3M3 13.5h10", strokeWidth: "1.8", round: true },
  externalLink: { d: "M6.5 3.5h-3v9h9v-3M9.5 3.5h3v3M12.5 3.5l-6 6", strokeWidth: "1.8", round: true },
  // A padlock: the body (a rounded rectangle) and the shackle.
  lock: { d: "M5 7h6a1.5 1.5 0 0 1 1.5 1.5v3.5a1.5 1.5 0 0 1-1.5 1.5H5a1.5 1.5 0 0 1-1.5-1.5V8.5A1.5 1.5 0 0 1 5 7ZM5.5 7V5a2.5 2.5 0 0 1 5 0v2", strokeWidth: "1.6", round: false },
} as const;

/** 20×20, filled (the shape is cut out of the fill). */
const solidIcons = {
  errorCircle: "M18 10a8 8 0 1 1-16 0 8 8 0 0 1 16 0Zm-8-5a.75.75 0 0 1 .75.75v4.5a.75.75 0 0 1-1.5 0v-4.5A.75.75 0 0 1 10 5Zm0 10a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z",
  warningTriangle: "M8.48 2.7a1.75 1.75 0 0 1 3.04 0l6.28 10.9A1.75 1.75 0 0 1 16.28 16H3.72a1.75 1.75 0 0 1-1.52-2.4L8.48 2.7ZM10 7a.75.75 0 0 1 .75.75v3a.75.75 0 0 1-1.5 0v-3A.75.75 0 0 1 10 7Zm0 6.5a1 1 0 1 0 0-2 1 1 0 0 0 0 2Z",
} as const;

export type IconName = keyof typeof outlineIcons | keyof typeof solidIcons;

const isSolid = (name: IconName): name is keyof typeof solidIcons => name in solidIcons;

export function Icon({ name, className }: { name: IconName; className: string }) {
  if (isSolid(name)) {
    return (
      <svg viewBox="0 0 20 20" fill="currentColor" aria-hidden="true" className={className}>
        <path fillRule="evenodd" d={solidIcons[name]} clipRule="evenodd" />
      </svg>
    );
  }
  const { d, strokeWidth, round } = outlineIcons[name];
  const cap = round ? "round" : undefined;
  return (
    <svg aria-hidden="true" viewBox="0 0 16 16" className={className} fill="none" stroke="currentColor" strokeWidth={strokeWidth}>
      <path d={d} strokeLinecap={cap} strokeLinejoin={cap} />
    </svg>
  );
}
