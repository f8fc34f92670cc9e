/** Joins class names, skipping falsy parts: `cx("a", isOn && "b", className)`. */
export const cx = (...parts: Array<string | false | null | undefined>): string =>
  parts.filter(Boolean).join(" ");
