import { queryOptions } from "@tanstack/react-query";
import type { SystemView } from "@/lib/system/view";
import { fetchJson } from "./fetch-json";

/** The system page's instances, read again every few seconds while the tab is in view. */
export const SYSTEM_REFRESH_MS = 2_500;

export const systemQuery = () =>
  queryOptions({
    queryKey: ["admin", "system"] as const,
    queryFn: () => fetchJson<SystemView>("/api/admin/system"),
    refetchInterval: SYSTEM_REFRESH_MS,
  });
