import type { Metadata } from "next";
import { MembersConsole } from "@/components/members/members-console";
import { WorkspaceSettings } from "@/components/members/workspace-settings";
import { ConsolePage } from "@/components/ui/page-header";
import { requireUser } from "@/lib/auth/require-user";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage() {
  const user = await requireUser("/workspace/members");
  return (
    <ConsolePage
      title="Members"
      description="Who works in the active workspace, with which role and monthly budget; invite people by e-mail and see pending invitations."
    >
      <MembersConsole currentUserId={user.id} isServiceAdmin={user.role === "admin"} />
      <WorkspaceSettings currentUserId={user.id} isServiceAdmin={user.role === "admin"} />
    </ConsolePage>
  );
}
