import type { HTMLAttributes } from "react";
import { cx } from "./class-names";

export type BadgeVariant = "neutral" | "accent" | "success" | "warning" | "danger";

const variants: Record<BadgeVariant, string> = {
  neutral: "bg-surface-muted text-muted ring-border-strong",
  accent: "bg-accent-soft text-accent-soft-foreground ring-accent/30",
  success: "bg-success-soft text-success ring-success/30",
  warning: "bg-warning-soft text-warning ring-warning/30",
  danger: "bg-danger-soft text-danger ring-danger/30",
};

export type BadgeProps = HTMLAttributes<HTMLSpanElement> & { variant?: BadgeVariant };

export function Badge({ variant = "neutral", className, ...props }: BadgeProps) {
  return (
    <span
      className={cx(
        "inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset",
        variants[variant],
        className,
      )}
      {...props}
    />
  );
}
