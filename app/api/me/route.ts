import { consoleRoute } from "@/lib/console-api/handler";
import { toMe } from "@/lib/users/views";

export const GET = consoleRoute({}, async ({ user }) => toMe(user));
