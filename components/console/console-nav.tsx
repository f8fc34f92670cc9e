"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useId, useState, type ReactNode } from "react";
import { cx } from "@/components/ui/class-names";
import { activeWorkspace, workspacesQuery } from "@/lib/query/workspaces";
import { roleMay, type WorkspaceAction, type WorkspaceRole } from "@/lib/workspaces/roles";

/** `needs`: the workspace actions (lib/workspaces/roles.ts) of which the page needs one; a role with none of them is not shown the entry. */
type NavItem = { href: string; label: string; icon: string; needs?: readonly WorkspaceAction[] };

const LOOKUPS: readonly WorkspaceAction[] = ["lookups.run"];

// 24×24 outline icon paths (stroke), one per destination.
const consoleItems: NavItem[] = [
  { href: "/events", label: "Events", icon: "M6.75 3v2.25M17.25 3v2.25M3.75 8.25h16.5M5.25 5.25h13.5a1.5 1.5 0 0 1 1.5 1.5v12a1.5 1.5 0 0 1-1.5 1.5H5.25a1.5 1.5 0 0 1-1.5-1.5v-12a1.5 1.5 0 0 1 1.5-1.5Z", needs: LOOKUPS },
  { href: "/followers", label: "Followers", icon: "M15 19.13a9.38 9.38 0 0 0 6-1.89 4.13 4.13 0 0 0-7.53-2.5M15 19.13v-.01a6.06 6.06 0 0 0-.94-3.24M15 19.13A11.9 11.9 0 0 1 8.62 21 11.9 11.9 0 0 1 2.25 19.13a6.38 6.38 0 0 1 11.8-3.25M12 6.38a3.38 3.38 0 1 1-6.75 0 3.38 3.38 0 0 1 6.75 0Zm8.25 2.25a2.63 2.63 0 1 1-5.25 0 2.63 2.63 0 0 1 5.25 0Z", needs: LOOKUPS },
  { href: "/publications", label: "Publications", icon: "M19.5 14.25v-2.63a3.38 3.38 0 0 0-3.38-3.37h-1.5a1.13 1.13 0 0 1-1.12-1.13v-1.5A3.38 3.38 0 0 0 10.13 2.25H8.25m2.25 0H5.63c-.62 0-1.13.5-1.13 1.13v17.24c0 .62.5 1.13 1.13 1.13h12.74c.62 0 1.13-.5 1.13-1.13V11.25a9 9 0 0 0-9-9ZM8.25 15.75h7.5M8.25 18.75H12", needs: LOOKUPS },
  { href: "/batches", label: "Batches", icon: "M3.75 6.75h16.5M3.75 12h16.5m-16.5 5.25H12m4.5 0 2.25 2.25 3-4.5" },
  { href: "/keys", label: "Keys", icon: "M15.75 5.25a3 3 0 0 1 3 3m3 0a6 6 0 0 1-7.03 5.91c-.56-.1-1.16.03-1.56.43l-2.66 2.66H8.25v2.25H6v2.25H2.25v-2.82c0-.6.24-1.17.66-1.59l6.5-6.5c.4-.4.53-1 .43-1.56a6 6 0 1 1 11.91-1.03Z" },
  { href: "/workspace/members", label: "Members", icon: "M15 19.13a9.38 9.38 0 0 0 6-1.89 4.13 4.13 0 0 0-7.53-2.5M9 7.5a3 3 0 1 1 6 0 3 3 0 0 1-6 0ZM3 19.5a6 6 0 0 1 12 0" },
  { href: "/workspace/audit", label: "Workspace audit", icon: "M9 12h6M9 15.75h6M9 8.25h6M5.25 3.75h13.5v16.5H5.25z", needs: ["audit.read"] },
  { href: "/usage", label: "Usage", icon: "M3 13.13C3 12.5 3.5 12 4.13 12h2.25c.62 0 1.12.5 1.12 1.13v6.75c0 .62-.5 1.12-1.12 1.12H4.13C3.5 21 3 20.5 3 19.87v-6.75Zm6.75-4.5c0-.63.5-1.13 1.13-1.13h2.25c.62 0 1.12.5 1.12 1.13v11.25c0 .62-.5 1.12-1.12 1.12h-2.25c-.63 0-1.13-.5-1.13-1.12V8.63Zm6.75-4.5c0-.63.5-1.13 1.13-1.13h2.25C20.5 3 21 3.5 21 4.13v15.75c0 .62-.5 1.12-1.12 1.12h-2.25c-.63 0-1.13-.5-1.13-1.12V4.13Z" },
  { href: "/api-docs", label: "API", icon: "M17.25 6.75 22.5 12l-5.25 5.25m-10.5 0L1.5 12l5.25-5.25m7.5-3-4.5 16.5" },
];

const adminItems: NavItem[] = [
  { href: "/admin/users", label: "Users", icon: "M18 18.72a9.09 9.09 0 0 0 3.74-.48 3 3 0 0 0-4.68-2.72M18 18.72v.03c0 .34-.02.67-.06 1A11.94 11.94 0 0 1 12 21c-2.17 0-4.2-.58-5.94-1.59a6.06 6.06 0 0 1-.06-1.03m12 .34a5.97 5.97 0 0 0-.94-3.2M6 18.72a9.09 9.09 0 0 1-3.74-.48 3 3 0 0 1 4.68-2.72M6 18.72a5.97 5.97 0 0 1 .94-3.2m0 0a5.99 5.99 0 0 1 10.12 0M15 6.75a3 3 0 1 1-6 0 3 3 0 0 1 6 0Zm6 3a2.25 2.25 0 1 1-4.5 0 2.25 2.25 0 0 1 4.5 0Zm-13.5 0a2.25 2.25 0 1 1-4.5 0 2.25 2.25 0 0 1 4.5 0Z" },
  { href: "/admin/credits", label: "Credits", icon: "M12 6v12m-3-2.8.9.6c1.2.9 3 .9 4.2 0 1.2-.9 1.2-2.3 0-3.2-.6-.4-1.4-.7-2.1-.7-.7 0-1.4-.2-1.9-.6-1.1-.8-1.1-2.1 0-2.9 1.1-.8 2.9-.8 4 0l.4.3M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0Z" },
  { href: "/admin/workspaces", label: "Workspaces", icon: "M3.75 21h16.5M4.5 3h15M5.25 3v18m13.5-18v18M9 6.75h1.5m-1.5 3h1.5m-1.5 3h1.5m3-6H15m-1.5 3H15m-1.5 3H15M9 21v-3.38c0-.62.5-1.12 1.13-1.12h2.25c.62 0 1.12.5 1.12 1.13V21" },
  { href: "/admin/settings", label: "Upstream", icon: "M12 3v12m0 0 4-4m-4 4-4-4M4.5 19.5h15" },
  { href: "/admin/upload", label: "Import", icon: "M12 21V9m0 0 4 4m-4-4-4 4M4.5 4.5h15" },
  { href: "/admin/privacy", label: "Privacy", icon: "M12 3 4.5 6v5.25c0 4.6 3.2 8.9 7.5 9.75 4.3-.85 7.5-5.15 7.5-9.75V6L12 3Zm-2.25 9 1.5 1.5 3-3" },
  { href: "/admin/system", label: "System", icon: "M4.5 4.5h15v6h-15v-6Zm0 9h15v6h-15v-6ZM7.5 7.5h.01M7.5 16.5h.01M11.25 7.5h4.5m-4.5 9h4.5" },
  { href: "/admin/audit", label: "Audit log", icon: "M9 12h3.75M9 15h3.75M9 18h3.75m3 .75H18a2.25 2.25 0 0 0 2.25-2.25V6.11c0-1.13-.84-2.09-1.96-2.19a48.42 48.42 0 0 0-1.12-.08m-5.8 0a2.25 2.25 0 0 0-.1.66c0 .41.34.75.75.75h4.5a.75.75 0 0 0 .75-.75 2.25 2.25 0 0 0-.1-.66m-5.8 0A2.25 2.25 0 0 1 13.5 2.25H15a2.25 2.25 0 0 1 2.15 1.59m-5.8 0c-.38.03-.75.05-1.13.08C9.1 4.02 8.25 4.98 8.25 6.11V8.25m0 0H4.88c-.62 0-1.13.5-1.13 1.13v11.25c0 .62.5 1.12 1.13 1.12h9.75c.62 0 1.12-.5 1.12-1.12V9.38c0-.62-.5-1.13-1.12-1.13H8.25Z" },
];

/**
 * The entries the role in the active workspace can use; every entry while the workspaces load, for
 * the service administrator (who may do everything) and for a role of null (an administrator
 * outside the workspace).
 */
const usableItems = (items: NavItem[], role: WorkspaceRole | null | undefined, isAdmin: boolean): NavItem[] =>
  isAdmin || role === null || role === undefined
    ? items
    : items.filter((item) => item.needs === undefined || item.needs.some((action) => roleMay(role, action)));

const isCurrent = (pathname: string, href: string) => pathname === href || pathname.startsWith(`${href}/`);

function NavList({ items, pathname }: { items: NavItem[]; pathname: string }) {
  return (
    <ul className="flex flex-col gap-0.5">
      {items.map((item) => {
        const current = isCurrent(pathname, item.href);
        return (
          <li key={item.href}>
            <Link
              href={item.href}
              aria-current={current ? "page" : undefined}
              className={cx(
                "flex items-center gap-2.5 rounded-lg px-2.5 py-2 text-sm font-medium transition-colors",
                current ? "bg-accent-soft text-accent-soft-foreground" : "text-muted hover:bg-surface-muted hover:text-foreground",
              )}
            >
              <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden="true" className="size-[18px] shrink-0">
                <path d={item.icon} strokeLinecap="round" strokeLinejoin="round" />
              </svg>
              {item.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}

export type ConsoleNavProps = {
  isAdmin: boolean;
  /** Server-rendered parts under the links: the credit meter slot and the account block. */
  children?: ReactNode;
  /** Shown in the narrow screens' top bar, beside "Menu": the compact credit meter. */
  compactMeter?: ReactNode;
};

/**
 * The console's navigation: a sidebar from `lg` up, a disclosure ("Menu") below it that closes
 * by itself when the page changes.
 */
export function ConsoleNav({ isAdmin, children, compactMeter }: ConsoleNavProps) {
  const pathname = usePathname();
  const panelId = useId();
  // Open for one page only: navigating (a new pathname) closes the menu without an effect.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const workspaces = useQuery(workspacesQuery());
  const items = usableItems(consoleItems, activeWorkspace(workspaces.data)?.role, isAdmin);
  const currentLabel = [...consoleItems, ...adminItems, { href: "/account", label: "Account" }].find((item) => isCurrent(pathname, item.href))?.label ?? "Console";

  return (
    <aside className="lg:sticky lg:top-20 lg:self-start">
      <div className="flex items-center justify-between gap-3 rounded-xl border border-border bg-surface px-3 py-2 shadow-sm lg:hidden">
        <span className="min-w-0 truncate text-sm font-semibold">{currentLabel}</span>
        <div className="ml-auto flex min-w-0 items-center gap-2">
          {compactMeter ? <div className="min-w-0 max-w-40">{compactMeter}</div> : null}
          <button
            type="button"
            aria-expanded={open}
            aria-controls={panelId}
            onClick={() => setOpenOn(open ? null : pathname)}
            className="inline-flex h-9 items-center gap-2 rounded-lg border border-border-strong bg-surface px-3 text-sm font-medium shadow-sm hover:bg-surface-muted"
          >
            <svg viewBox="0 0 20 20" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true" className="size-4">
              {open ? <path d="m5 5 10 10M15 5 5 15" strokeLinecap="round" /> : <path d="M3 5.5h14M3 10h14M3 14.5h14" strokeLinecap="round" />}
            </svg>
            Menu
          </button>
        </div>
      </div>
      <div
        id={panelId}
        className={cx(
          "mt-2 flex-col gap-5 rounded-xl border border-border bg-surface p-3 shadow-sm lg:mt-0 lg:flex lg:border-0 lg:bg-transparent lg:p-0 lg:shadow-none",
          open ? "flex" : "hidden",
        )}
      >
        <nav aria-label="Console" className="flex flex-col gap-5">
          <NavList items={items} pathname={pathname} />
          {isAdmin ? (
            <div className="flex flex-col gap-1.5">
              <p className="px-2.5 text-xs font-semibold tracking-wide text-muted uppercase">Admin</p>
              <NavList items={adminItems} pathname={pathname} />
            </div>
          ) : null}
        </nav>
        {children}
      </div>
    </aside>
  );
}
