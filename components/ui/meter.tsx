import { useId } from "react";
import { cx } from "./class-names";

export type MeterVariant = "normal" | "amber" | "red";

export type MeterProps = {
  /** Visible label, also the meter's accessible name. */
  label: string;
  value: number;
  max: number;
  variant?: MeterVariant;
  /** Unit after the numbers, e.g. "credits". */
  unit?: string;
  className?: string;
};

const barColors: Record<MeterVariant, string> = {
  normal: "bg-accent",
  amber: "bg-warning",
  red: "bg-danger",
};

// A fixed locale keeps server and browser output identical (no hydration mismatch).
const numberFormat = new Intl.NumberFormat("en-US");

/** A labelled bar with "value / max" numbers; role=meter with its value range for assistive tech. */
export function Meter({ label, value, max, variant = "normal", unit, className }: MeterProps) {
  const labelId = useId();
  const safeMax = Math.max(0, max);
  const clampedValue = Math.min(Math.max(0, value), safeMax);
  const percent = safeMax === 0 ? 0 : (clampedValue / safeMax) * 100;
  const unitSuffix = unit ? ` ${unit}` : "";
  const valueText = `${numberFormat.format(value)} of ${numberFormat.format(max)}${unitSuffix}`;

  return (
    <div className={cx("flex flex-col gap-1.5", className)}>
      <div className="flex items-baseline justify-between gap-3 text-sm">
        <span id={labelId} className="font-medium whitespace-nowrap text-foreground">
          {label}
        </span>
        <span className="text-muted tabular-nums" aria-hidden="true">
          <span className="font-semibold text-foreground">{numberFormat.format(value)}</span> /{" "}
          {numberFormat.format(max)}
          {unitSuffix}
        </span>
      </div>
      <div
        role="meter"
        aria-labelledby={labelId}
        aria-valuemin={0}
        aria-valuemax={safeMax}
        aria-valuenow={clampedValue}
        aria-valuetext={valueText}
        className="h-2 w-full overflow-hidden rounded-full bg-surface-muted ring-1 ring-border ring-inset"
      >
        <div
          className={cx("h-full rounded-full transition-[width] duration-300", barColors[variant])}
          style={{ width: `${percent}%` }}
        />
      </div>
    </div>
  );
}
