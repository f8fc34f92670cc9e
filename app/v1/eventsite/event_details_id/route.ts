import { eventDetailsId as eventById } from "@/lib/operations/event-details-id";
import { methodNotAllowed, withApiKey } from "@/lib/api/with-api-key";

export const dynamic = "force-dynamic";

export const GET = withApiKey(eventById);
export const HEAD = methodNotAllowed;
export const POST = methodNotAllowed;
export const PUT = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const DELETE = methodNotAllowed;
export const OPTIONS = methodNotAllowed;
