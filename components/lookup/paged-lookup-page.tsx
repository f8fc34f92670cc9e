"use client";

import type { ReactNode } from "react";
import { PagedLookupForm, type PagedLookupFormProps } from "./paged-lookup-form";

/**
 * A paged lookup view (followers, publications): its form, then what the lookup shows. A new
 * input with a problem hides the result of the old one (and its request id) until it is fixed.
 */
export function PagedLookupPage({ children, ...form }: PagedLookupFormProps & { children: ReactNode }) {
  return (
    <div className="flex flex-col gap-5">
      <PagedLookupForm {...form} />
      {form.field.problem === null ? children : null}
    </div>
  );
}
