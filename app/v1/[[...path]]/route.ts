import { plainError } from "@/lib/api/envelope";
import { messages } from "@/lib/api/errors";

// Any /v1 path that is not an operation: the 404 envelope, whatever the method.
const notFound = async (): Promise<Response> => plainError(404, messages.notFoundPath);

export const dynamic = "force-dynamic";

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
