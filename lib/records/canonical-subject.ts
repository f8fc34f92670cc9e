import { entityIdFromNodeId } from "@/lib/records/node-id";
import { EVENT_PAGE_PATH } from "@/lib/records/param-rules";
import type { SubjectKind } from "./subject-kinds";

/**
 * The one spelling of each data subject. A provider may read one subject under several spellings
 * (a URN's type in any case, an id with leading zeros read as the number it is), so suppression,
 * erasure and subject access compare subjects only in this form — the form a suppression is
 * stored in, a lookup is checked in and a record's own id is checked in:
 *
 *   event      digits without leading zeros; an event page URL (…/events/<digits>/) gives its id
 *   pin_user   digits without leading zeros; a node id gives the user it encodes
 *   profile    urn:li:<type>:<id> with the type in lower case (the prefix in any case is read);
 *              an id of digits loses its leading zeros, any other id keeps its case
 */
const DIGITS = /^\d{1,20}$/;
const URN = /^urn:li:([A-Za-z_]+):([A-Za-z0-9_-]{1,100})$/i;
const MAX_URN_LENGTH = 200;

/** A numeric id as a number reads it: "0042" is "42", "000" is "0". */
export const canonicalNumber = (digits: string): string => digits.replace(/^0+(?=\d)/, "");

const eventIdOf = (text: string): string | null => {
  if (DIGITS.test(text)) return canonicalNumber(text);
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const id = EVENT_PAGE_PATH.exec(url.pathname)?.[1];
  return id === undefined ? null : canonicalNumber(id);
};

const pinUserOf = (text: string): string | null => {
  if (DIGITS.test(text)) return canonicalNumber(text);
  const entityId = entityIdFromNodeId(text);
  return entityId === null ? null : canonicalNumber(entityId);
};

const profileOf = (text: string): string | null => {
  if (text.length > MAX_URN_LENGTH) return null;
  const match = URN.exec(text);
  const type = match?.[1];
  const id = match?.[2];
  if (type === undefined || id === undefined) return null;
  return `urn:li:${type.toLowerCase()}:${/^\d+$/.test(id) ? canonicalNumber(id) : id}`;
};

/** The subject's canonical id, or null when the text is not one of its kind. */
export const canonicalSubject = (kind: SubjectKind, raw: string): string | null => {
  const text = raw.trim();
  switch (kind) {
    case "event":
      return eventIdOf(text);
    case "pin_user":
      return pinUserOf(text);
    case "profile":
      return profileOf(text);
  }
};

/** The canonical id of a subject a lookup or a record names (a text that is none stays as it is). */
export const subjectKey = (kind: SubjectKind, raw: string): string => canonicalSubject(kind, raw) ?? raw;
