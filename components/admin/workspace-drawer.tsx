"use client";

import Link from "next/link";
import { formatCount } from "@/components/keys/format";
import { Button } from "@/components/ui/button";
import { Modal, ModalActions } from "@/components/ui/modal";
import type { AdminWorkspaceView } from "@/lib/query/workspace-admin";
import { PoolGrantForm, RefillForm, SharedLimitForm } from "./pool-forms";
import { refillText } from "./workspace-text";

/**
 * One workspace of Admin → Workspaces, opened from its row: what it is, then its actions. A team
 * has a pool to fund and refill; a personal workspace only a shared limit (its keys keep their
 * own credits, topped up on Admin → Credits).
 */
export function WorkspaceDrawer({ workspace, onClose }: { workspace: AdminWorkspaceView | null; onClose: () => void }) {
  return (
    <Modal
      open={workspace !== null}
      onClose={onClose}
      title={workspace ? `Workspace “${workspace.name}”` : "Workspace"}
      description={
        workspace ? (
          <span data-testid="workspace-drawer-summary">
            {workspace.personal ? "Personal workspace" : "Team"} of {workspace.ownerEmails.join(", ") || "no owner"} · {formatCount(workspace.memberCount)}{" "}
            {workspace.memberCount === 1 ? "member" : "members"}
            {workspace.personal ? null : (
              <>
                {" "}
                · pool <span className="tabular-nums">{formatCount(workspace.poolCredits)}</span> credits · {refillText(workspace.refill)}
              </>
            )}
          </span>
        ) : undefined
      }
      testId="workspace-drawer"
    >
      {workspace ? (
        <>
          <p className="font-mono text-xs break-all text-muted">{workspace.id}</p>
          {workspace.personal ? (
            <p className="text-sm text-muted">
              A personal workspace has no pool: its keys keep their own credits. Top a key up on{" "}
              <Link href="/admin/credits" className="font-medium text-accent underline-offset-2 hover:underline">
                Admin → Credits
              </Link>
              .
            </p>
          ) : (
            <>
              <PoolGrantForm workspace={workspace} />
              <RefillForm workspace={workspace} />
            </>
          )}
          <SharedLimitForm workspace={workspace} />
          <ModalActions>
            <Button variant="secondary" onClick={onClose} data-testid="workspace-drawer-close">
              Close
            </Button>
          </ModalActions>
        </>
      ) : null}
    </Modal>
  );
}
