"use client";

import type { ReactNode, Ref } from "react";
import { DownloadButtons, type DownloadButtonsProps } from "@/components/export/download-buttons";
import { cx } from "@/components/ui/class-names";

/**
 * The result of a paged lookup (followers, publications): a heading that names the section,
 * the export buttons beside it, then the result itself.
 */
export function LookupResultSection<Row>({
  headingId,
  heading,
  headingRef,
  headingClassName,
  exportProps,
  children,
}: {
  headingId: string;
  heading: ReactNode;
  headingRef?: Ref<HTMLHeadingElement>;
  headingClassName?: string;
  exportProps: DownloadButtonsProps<Row>;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={headingId} className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 ref={headingRef} id={headingId} className={cx(headingClassName, "text-lg font-semibold tracking-tight")}>
          {heading}
        </h2>
        <DownloadButtons {...exportProps} />
      </div>
      {children}
    </section>
  );
}
