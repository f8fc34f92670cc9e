/**
 * The kinds of data subject an operation's input names (each operation descriptor declares its
 * `subjectKind`): what suppression and subject access work on. Browser-safe: plain data only.
 */
export type SubjectKind = "event" | "pin_user" | "profile";

export const subjectKindLabels: Record<SubjectKind, { label: string; hint: string }> = {
  event: { label: "Event", hint: "an event id (digits) or an event page URL" },
  pin_user: { label: "Pin-board user", hint: "a user id (digits) or a node id" },
  profile: { label: "Profile", hint: "a profile URN (urn:li:…)" },
};
