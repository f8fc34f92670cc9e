"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { OperationCostProvider } from "@/components/credit-meter";
import { ConsoleApiError } from "@/lib/query/fetch-json";

/** A session that ended elsewhere (sign out everywhere, account disabled) sends the browser to sign in again. */
const onUnauthenticated = (error: Error) => {
  if (error instanceof ConsoleApiError && error.status === 401) {
    const here = `${window.location.pathname}${window.location.search}`;
    window.location.assign(`/signin?callbackUrl=${encodeURIComponent(here)}`);
  }
};

const makeQueryClient = () =>
  new QueryClient({
    queryCache: new QueryCache({ onError: onUnauthenticated }),
    mutationCache: new MutationCache({ onError: onUnauthenticated }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // Client errors (4xx) will not improve by asking again; network and 5xx get two more tries.
        retry: (failureCount, error) =>
          failureCount < 2 && !(error instanceof ConsoleApiError && error.status >= 400 && error.status < 500),
      },
      mutations: { retry: false },
    },
  });

export function ConsoleProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <OperationCostProvider>{children}</OperationCostProvider>
    </QueryClientProvider>
  );
}
