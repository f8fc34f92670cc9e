import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { authOptions } from "@/lib/auth/options";

type RouteContext = { params: Promise<{ nextauth: string[] }> };

/** next-auth's endpoints (csrf, providers, callback, session, signout). Options are built on the first request, not at import. */
const handler = (request: NextRequest, context: RouteContext): Promise<Response> => NextAuth(request, context, authOptions());

export { handler as GET, handler as POST };
