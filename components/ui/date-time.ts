/**
 * The console's one way to show a moment: date and time to the minute, in the browser's locale
 * and time zone ("24 Nov 2026, 11:19" or "Nov 24, 2026, 11:19 AM"). Dates only come from data
 * fetched in the browser, so the server never renders one (no hydration mismatch).
 */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export const formatDateTime = (moment: string | number | Date): string => dateTime.format(new Date(moment));
