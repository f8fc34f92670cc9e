import { entityIdFromNodeId } from "./node-id";
import { EVENT_PAGE_PATH } from "./param-rules";

/**
 * The one spelling of each kind of subject's id (lib/records/canonical-subject.ts says why). Each
 * kind of record (lib/records/kinds.ts) names its reader here; each returns null for a text that is
 * not an id of its kind.
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

export const eventIdOf = (text: string): string | null => {
  if (DIGITS.test(text)) return canonicalNumber(text);
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  const id = EVENT_PAGE_PATH.exec(url.pathname)?.[1];
  return id === undefined ? null : canonicalNumber(id);
};

export const pinUserIdOf = (text: string): string | null => {
  if (DIGITS.test(text)) return canonicalNumber(text);
  const entityId = entityIdFromNodeId(text);
  return entityId === null ? null : canonicalNumber(entityId);
};

export const profileUrnOf = (text: string): string | null => {
  if (text.length > MAX_URN_LENGTH) return null;
  const match = URN.exec(text);
  const type = match?.[1];
  const id = match?.[2];
  if (type === undefined || id === undefined) return null;
  return `urn:li:${type.toLowerCase()}:${/^\d+$/.test(id) ? canonicalNumber(id) : id}`;
};
