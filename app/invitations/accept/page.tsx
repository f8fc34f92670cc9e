import type { Metadata } from "next";
import { AcceptInvitation } from "@/components/invitations/accept-invitation";
import { ConsoleProviders } from "@/components/console/providers";
import { Card, CardContent } from "@/components/ui/card";
import { currentUser } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Join a workspace", robots: { index: false } };

/** Where an invitation link leads, signed in or not (the token is in the link's fragment). */
export default async function AcceptInvitationPage() {
  const user = await currentUser();
  return (
    <div className="mx-auto flex w-full max-w-md flex-col gap-6 px-4 py-12 sm:py-20">
      <div className="flex flex-col gap-2 text-center">
        <h1 className="text-2xl font-semibold tracking-tight">Join a workspace</h1>
        <p className="text-sm text-muted">A team workspace&apos;s members share one credit pool, each with the role they were invited with.</p>
      </div>
      <Card>
        <CardContent>
          <ConsoleProviders>
            <AcceptInvitation signedInEmail={user?.email ?? null} />
          </ConsoleProviders>
        </CardContent>
      </Card>
    </div>
  );
}
