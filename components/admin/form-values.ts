/**
 * Reading form fields for the JSON API: text as typed, numbers as numbers when they look like
 * one (otherwise the raw text, so validation reports "must be a number" rather than guessing).
 */
export const textValue = (form: FormData, name: string): string => {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
};

export const numberValue = (form: FormData, name: string): number | string => {
  const text = textValue(form, name).trim().replace(/[,_\s]/g, "");
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
};

/** "must be at least 12 characters" → "Password must be at least 12 characters." */
export const labelled = (label: string, message: string | undefined): string | undefined =>
  message ? `${label} ${message}.` : undefined;
