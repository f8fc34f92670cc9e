/** "~12 days left", "< 1 day left", "empty", or "no recent spend" (a forecast's daysLeft, for people). */
export const describeDaysLeft = (daysLeft: number | null): string => {
  if (daysLeft === null) return "no recent spend";
  if (daysLeft <= 0) return "empty";
  if (daysLeft < 1) return "< 1 day left";
  const days = Math.round(daysLeft);
  return `~${days} day${days === 1 ? "" : "s"} left`;
};
