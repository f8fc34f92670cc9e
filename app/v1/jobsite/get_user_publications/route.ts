import { publications } from "@/lib/operations/publications";
import { methodNotAllowed, withApiKey } from "@/lib/api/with-api-key";

export const dynamic = "force-dynamic";

export const GET = withApiKey(publications);
export const HEAD = methodNotAllowed;
export const POST = methodNotAllowed;
export const PUT = methodNotAllowed;
export const PATCH = methodNotAllowed;
export const DELETE = methodNotAllowed;
export const OPTIONS = methodNotAllowed;
