"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";

/**
 * The state a lookup page keeps in its URL, so that the page can be shared: a parameter as
 * written (trimmed, "" when absent), and a move to this page with other parameters that keeps
 * the scroll position.
 */
export const useLookupUrl = () => {
  const searchParams = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  return {
    searchParams,
    param: (name: string): string => (searchParams.get(name) ?? "").trim(),
    push: (params: Record<string, string>) => router.push(`${pathname}?${new URLSearchParams(params).toString()}`, { scroll: false }),
  };
};

/**
 * The subjects the user ran in this visit. Opening a link never buys a lookup by itself: any
 * other subject shows only what this session already holds.
 */
export const useRequestedSubjects = (): [requested: ReadonlySet<string>, request: (subject: string) => void] => {
  const [requested, setRequested] = useState<ReadonlySet<string>>(() => new Set());
  const request = (subject: string) => setRequested((current) => (current.has(subject) ? current : new Set(current).add(subject)));
  return [requested, request];
};
