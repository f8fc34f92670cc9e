import { eventDetails as eventByUrl } from "@/lib/operations/event-details";
import { methodNotAllowed, withApiKey } from "@/lib/api/with-api-key";

export const dynamic = "force-dynamic";

export const GET = withApiKey(eventByUrl);
export const HEAD = methodNotAllowed;
export const POST = methodNotAllowed;
export const PUT = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const DELETE = methodNotAllowed;
export const OPTIONS = methodNotAllowed;
