"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { errorMessage } from "@/components/keys/format";
import { FormCard } from "@/components/ui/form-card";
import { FormError } from "@/components/ui/form-alert";
import { Input } from "@/components/ui/input";
import { SubmitButton } from "@/components/ui/submit-button";
import { createWorkspace, refreshAfterSwitch, switchWorkspace } from "@/lib/query/workspaces";

/** A new team workspace, its creator the owner; the console switches to it at once. */
export function CreateWorkspaceForm() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string>();
  const mutation = useMutation({
    mutationFn: async (workspaceName: string) => {
      const workspace = await createWorkspace(workspaceName);
      await switchWorkspace(workspace.id);
      return workspace;
    },
    onSuccess: async () => {
      setName("");
      await refreshAfterSwitch(queryClient);
      router.refresh();
    },
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (trimmed.length < 1 || trimmed.length > 100) return setNameError("Give the workspace a name of 1 to 100 characters.");
    setNameError(undefined);
    mutation.mutate(trimmed);
  };
  return (
    <FormCard
      title="Create a team workspace"
      description="A team shares one credit pool; you will be its owner and can invite others."
      onSubmit={onSubmit}
      pending={mutation.isPending}
      footer={
        <SubmitButton pending={mutation.isPending} pendingLabel="Creating…" data-testid="workspace-create-submit">
          Create workspace
        </SubmitButton>
      }
    >
      <div className="flex flex-col gap-3">
        <Input label="Workspace name" required value={name} onChange={(event) => setName(event.target.value)} error={nameError} data-testid="workspace-name" />
        <FormError message={mutation.isError ? errorMessage(mutation.error) : null} testId="workspace-create-error" />
      </div>
    </FormCard>
  );
}
