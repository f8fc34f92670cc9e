/**
 * The console's 16×16 outline icons, one path each, drawn in the text colour. They are
 * decorative: the text beside them says the same, so assistive tech skips them.
 */
const icons = {
  check: { d: "m3.5 8.5 3 3 6-7", strokeWidth: "2", round: true },
  download: { d: "M8 2.5v8m0 0 3-3m-3 3-3-3M3 13.5h10", strokeWidth: "1.8", round: true },
  externalLink: { d: "M6.5 3.5h-3v9h9v-3M9.5 3.5h3v3M12.5 3.5l-6 6", strokeWidth: "1.8", round: true },
  // A padlock: the body (a rounded rectangle) and the shackle.
  lock: { d: "M5 7h6a1.5 1.5 0 0 1 1.5 1.5v3.5a1.5 1.5 0 0 1-1.5 1.5H5a1.5 1.5 0 0 1-1.5-1.5V8.5A1.5 1.5 0 0 1 5 7ZM5.5 7V5a2.5 2.5 0 0 1 5 0v2", strokeWidth: "1.6", round: false },
} as const;

export type IconName = keyof typeof icons;

export function Icon({ name, className }: { name: IconName; className: string }) {
  const { d, strokeWidth, round } = icons[name];
  const cap = round ? "round" : undefined;
  return (
    <svg aria-hidden="true" viewBox="0 0 16 16" className={className} fill="none" stroke="currentColor" strokeWidth={strokeWidth}>
      <path d={d} strokeLinecap={cap} strokeLinejoin={cap} />
    </svg>
  );
}
