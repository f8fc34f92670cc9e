import { z } from "zod";

/** The console API's bodies for suppressing and lifting (app/api/admin/suppressions). */
export const suppressionBody = z.object({
  kind: z.string().max(40),
  subject: z.string().max(300),
  reason: z.string().trim().min(1, "Say why (the audit log keeps it).").max(500),
});
