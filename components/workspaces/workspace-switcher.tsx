"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { errorMessage } from "@/components/keys/format";
import { cx } from "@/components/ui/class-names";
import { activeWorkspace, refreshAfterSwitch, switchWorkspace, workspacesQuery, type WorkspaceSummary } from "@/lib/query/workspaces";
import { viewerRoleLabel } from "./role-labels";

/**
 * The shell's workspace switcher: a button naming the active workspace that opens the list of the
 * user's workspaces (a disclosure of buttons: Tab and arrow keys move, Escape closes and returns
 * focus). Choosing one switches (POST /api/workspaces/{id}/switch), then every page reads again:
 * keys, usage, the meter and lookups belong to the workspace now active.
 */
export function WorkspaceSwitcher() {
  const router = useRouter();
  const queryClient = useQueryClient();
  const workspaces = useQuery(workspacesQuery());
  const [open, setOpen] = useState(false);
  const listId = useId();
  const buttonRef = useRef<HTMLButtonElement>(null);
  const listRef = useRef<HTMLUListElement>(null);
  const active = activeWorkspace(workspaces.data);

  const mutation = useMutation({
    mutationFn: (workspace: WorkspaceSummary) => switchWorkspace(workspace.id),
    onSuccess: async () => {
      setOpen(false);
      buttonRef.current?.focus();
      await refreshAfterSwitch(queryClient);
      router.refresh();
    },
  });

  // Opening moves focus to the active entry, so the keyboard starts where the user is.
  useEffect(() => {
    if (!open) return;
    const current = listRef.current?.querySelector<HTMLButtonElement>("[aria-current='true']") ?? listRef.current?.querySelector("button");
    current?.focus();
  }, [open]);

  const onListKeyDown = (event: KeyboardEvent<HTMLUListElement>) => {
    if (event.key === "Escape") {
      event.preventDefault();
      setOpen(false);
      buttonRef.current?.focus();
      return;
    }
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    event.preventDefault();
    const buttons = [...(listRef.current?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
    const index = buttons.findIndex((button) => button === document.activeElement);
    const next = event.key === "ArrowDown" ? (index + 1) % buttons.length : (index - 1 + buttons.length) % buttons.length;
    buttons[next]?.focus();
  };

  const label = workspaces.isPending ? "Loading…" : workspaces.isError ? "Unavailable" : (active?.name ?? "Personal");

  return (
    <div className="flex flex-col gap-1.5" data-testid="workspace-switcher" data-active-workspace={active?.id}>
      <span className="px-1 text-xs font-semibold tracking-wide text-muted uppercase" id={`${listId}-label`}>
        Workspace
      </span>
      <button
        ref={buttonRef}
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        aria-describedby={`${listId}-label`}
        onClick={() => setOpen((value) => !value)}
        className="flex min-w-0 items-center justify-between gap-2 rounded-lg border border-border-strong bg-surface px-3 py-2 text-left text-sm font-medium shadow-sm hover:bg-surface-muted focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
        data-testid="workspace-switcher-button"
      >
        <span className="min-w-0 truncate">
          <span className="sr-only">Workspace: </span>
          {label}
        </span>
        {active ? <span className="shrink-0 text-xs text-muted">{viewerRoleLabel(active.role)}</span> : null}
      </button>
      {open ? (
        <ul
          id={listId}
          ref={listRef}
          onKeyDown={onListKeyDown}
          aria-label="Your workspaces"
          className="flex flex-col gap-0.5 rounded-lg border border-border bg-surface p-1 shadow-sm"
        >
          {(workspaces.data?.workspaces ?? []).map((workspace) => {
            const current = workspace.id === active?.id;
            return (
              <li key={workspace.id}>
                <button
                  type="button"
                  aria-current={current ? "true" : undefined}
                  disabled={mutation.isPending}
                  onClick={() => (current ? setOpen(false) : mutation.mutate(workspace))}
                  className={cx(
                    "flex w-full min-w-0 items-center justify-between gap-2 rounded-md px-2.5 py-1.5 text-left text-sm focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-ring",
                    current ? "bg-accent-soft font-medium text-accent-soft-foreground" : "hover:bg-surface-muted",
                  )}
                  data-testid={`workspace-option-${workspace.id}`}
                >
                  <span className="min-w-0 truncate">{workspace.name}</span>
                  <span className="shrink-0 text-xs text-muted">{workspace.personal ? "Personal" : viewerRoleLabel(workspace.role)}</span>
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
      <div role="alert" className="empty:hidden">
        {mutation.isError ? <p className="text-xs font-medium text-danger">{errorMessage(mutation.error)}</p> : null}
      </div>
    </div>
  );
}
