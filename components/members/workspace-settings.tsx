"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { ConfirmDialog } from "@/components/console/confirm-dialog";
import { errorMessage } from "@/components/keys/format";
import { bindValue } from "@/components/ui/bind-value";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { controlClass, Field } from "@/components/ui/field";
import { FormAlert } from "@/components/ui/form-alert";
import { Input } from "@/components/ui/input";
import { deleteWorkspace, refreshWorkspaces, transferWorkspace, updateWorkspace } from "@/lib/query/workspace-admin";
import { activeWorkspace, membersQuery, workspacesQuery, type WorkspaceSummary } from "@/lib/query/workspaces";
import { roleMay } from "@/lib/workspaces/roles";

/**
 * The active team's settings on the Members page (docs/teams.md "Deleting and transferring"):
 * owners and admins rename it; owners (and the service administrator) hand it to another member
 * or delete it. A personal workspace keeps its name and cannot be handed over or deleted, so it
 * shows nothing here.
 */
type Props = { currentUserId: string; isServiceAdmin: boolean };

function RenameForm({ workspace }: { workspace: WorkspaceSummary }) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const [name, setName] = useState(workspace.name);
  const [nameError, setNameError] = useState<string>();
  const mutation = useMutation({
    mutationFn: (next: string) => updateWorkspace(workspace.id, { name: next }),
    onSuccess: () => router.refresh(),
    onSettled: () => refreshWorkspaces(queryClient),
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 100) return setNameError("Give the workspace a name of 1 to 100 characters.");
    setNameError(undefined);
    mutation.mutate(trimmed);
  };
  return (
    <form noValidate onSubmit={onSubmit} className="flex flex-col gap-3" aria-busy={mutation.isPending || undefined}>
      <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
        <Input label="Workspace name" required className="sm:max-w-sm sm:flex-1" maxLength={100} {...bindValue(name, setName)} error={nameError} data-testid="workspace-rename-name" />
        <Button type="submit" variant="secondary" className="sm:mt-7" disabled={mutation.isPending} data-testid="workspace-rename-submit">
          {mutation.isPending ? "Saving…" : "Rename"}
        </Button>
      </div>
      <FormAlert error={mutation.isError ? errorMessage(mutation.error) : undefined} success={mutation.isSuccess ? `The workspace is now called “${mutation.variables}”.` : undefined} />
    </form>
  );
}

function OwnerActions({ workspace, currentUserId }: { workspace: WorkspaceSummary; currentUserId: string }) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const members = useQuery(membersQuery(workspace.id));
  const selectId = useId();
  const [heirId, setHeirId] = useState("");
  const [dialog, setDialog] = useState<"transfer" | "delete" | null>(null);
  const [confirmName, setConfirmName] = useState("");
  const [note, setNote] = useState<string>();
  const candidates = (members.data ?? []).filter((member) => member.userId !== currentUserId);
  const heir = candidates.find((member) => member.userId === heirId) ?? candidates[0];

  const transfer = useMutation({
    mutationFn: (userId: string) => transferWorkspace(workspace.id, userId),
    onSuccess: () => {
      setDialog(null);
      setNote(`${heir?.email ?? "The member"} is now an owner${workspace.role === "owner" ? "; you are an admin" : ""}.`);
    },
    onSettled: () => refreshWorkspaces(queryClient),
  });
  const remove = useMutation({
    mutationFn: () => deleteWorkspace(workspace.id),
    onSuccess: async () => {
      setDialog(null);
      // Nobody works in it any more: the console is back in the personal workspace.
      await refreshWorkspaces(queryClient);
      router.refresh();
    },
  });
  const close = () => {
    transfer.reset();
    remove.reset();
    setConfirmName("");
    setDialog(null);
  };

  return (
    <div className="flex flex-col gap-4 border-t border-border pt-4">
      <FormAlert success={note} />
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <Field label="Hand the workspace to" htmlFor={selectId} className="sm:max-w-sm sm:flex-1">
          <select id={selectId} className={controlClass} value={heir?.userId ?? ""} onChange={(event) => setHeirId(event.target.value)} disabled={candidates.length === 0} data-testid="workspace-transfer-member">
            {candidates.length === 0 ? <option value="">Invite someone first</option> : null}
            {candidates.map((member) => (
              <option key={member.userId} value={member.userId}>
                {member.name ? `${member.name} (${member.email})` : member.email}
              </option>
            ))}
          </select>
        </Field>
        <Button variant="secondary" disabled={heir === undefined} onClick={() => setDialog("transfer")} data-testid="workspace-transfer">
          Transfer ownership
        </Button>
      </div>
      <div>
        <Button variant="danger" onClick={() => setDialog("delete")} data-testid="workspace-delete">
          Delete workspace
        </Button>
      </div>
      <ConfirmDialog
        open={dialog === "transfer"}
        title={`Hand “${workspace.name}” to ${heir?.email ?? ""}?`}
        description={
          workspace.role === "owner"
            ? "They become an owner and you an admin, in one step: you keep managing members and keys, but can no longer delete the workspace or hand it over."
            : "They become an owner; the other members keep their roles."
        }
        confirmLabel="Transfer ownership"
        pendingLabel="Transferring…"
        pending={transfer.isPending}
        error={transfer.isError ? errorMessage(transfer.error) : undefined}
        onConfirm={() => heir && transfer.mutate(heir.userId)}
        onClose={close}
      />
      <ConfirmDialog
        open={dialog === "delete"}
        title={`Delete “${workspace.name}”?`}
        description={
          <ul className="list-disc space-y-1 pl-5">
            <li>Every key of the workspace is revoked at once; its open batches are canceled.</li>
            <li>Its members and pending invitations are removed; nobody can switch to it any more.</li>
            <li>The credits left in its pool go with it. Its usage and audit history stay.</li>
          </ul>
        }
        confirmLabel="Delete workspace"
        pendingLabel="Deleting…"
        variant="danger"
        pending={remove.isPending}
        error={remove.isError ? errorMessage(remove.error) : undefined}
        onConfirm={() => {
          if (confirmName.trim() === workspace.name) remove.mutate();
        }}
        onClose={close}
      >
        <Input
          label={`Type the workspace's name (${workspace.name}) to confirm`}
          {...bindValue(confirmName, setConfirmName)}
          autoComplete="off"
          error={confirmName !== "" && confirmName.trim() !== workspace.name ? "That is not the workspace's name." : undefined}
          data-testid="workspace-delete-confirm-name"
        />
      </ConfirmDialog>
    </div>
  );
}

export function WorkspaceSettings({ currentUserId, isServiceAdmin }: Props) {
  const workspaces = useQuery(workspacesQuery());
  const active = activeWorkspace(workspaces.data);
  if (!active || active.personal) return null;
  const may = (action: "workspace.settings" | "workspace.delete") => isServiceAdmin || (active.role !== null && roleMay(active.role, action));
  if (!may("workspace.settings") && !may("workspace.delete")) return null;
  return (
    <Card data-testid="workspace-settings">
      <CardHeader>
        <CardTitle as="h2">Workspace settings</CardTitle>
        <CardDescription>
          {active.poolCredits === 0
            ? "The pool is empty: lookups with this workspace's keys are refused until the service administrator grants credits (Admin → Workspaces) or an owner or admin moves some from their allowance."
            : "Rename the team; its owner hands it to another member or deletes it."}
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {may("workspace.settings") ? <RenameForm key={active.id} workspace={active} /> : null}
        {may("workspace.delete") ? <OwnerActions key={active.id} workspace={active} currentUserId={currentUserId} /> : null}
      </CardContent>
    </Card>
  );
}
