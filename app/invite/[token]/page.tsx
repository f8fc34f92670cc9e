import type { Metadata } from "next";
import { AcceptSignedIn, AcceptSignedOut } from "@/components/invitations/accept-invitation";
import { ConsoleProviders } from "@/components/console/providers";
import { Card, CardContent } from "@/components/ui/card";
import { currentUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Join a workspace", robots: { index: false }, referrer: "no-referrer" };

/**
 * Where an invitation link leads, signed in or not. The token is checked when the invitee
 * accepts (POST /api/invitations/accept), never before: the page reveals nothing about it.
 */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const user = await currentUser();
  return (
    <div className="mx-auto flex w-full max-w-md flex-col gap-6 px-4 py-12 sm:py-20">
      <div className="flex flex-col gap-2 text-center">
        <h1 className="text-2xl font-semibold tracking-tight">Join a workspace</h1>
        <p className="text-sm text-muted">
          You were invited to a team workspace: its members share one credit pool. The link works once and expires 7 days after it was made.
        </p>
      </div>
      <Card>
        <CardContent>
          <ConsoleProviders>{user ? <AcceptSignedIn token={token} email={user.email} /> : <AcceptSignedOut token={token} />}</ConsoleProviders>
        </CardContent>
      </Card>
    </div>
  );
}
