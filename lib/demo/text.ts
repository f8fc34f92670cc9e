/** Text helpers of the demo data set. */

// Letters that NFD does not split into base + accent.
const ASCII_FOLDS: Record<string, string> = { ł: "l", ø: "o", ß: "ss", æ: "ae", đ: "d", ı: "i", þ: "th", ð: "d" };

export const asciiSlug = (text: string): string =>
  text
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[łøßæđıþð]/g, (letter) => ASCII_FOLDS[letter] ?? "")
    .replace(/[^a-z0-9 ]/g, "")
    .trim();
