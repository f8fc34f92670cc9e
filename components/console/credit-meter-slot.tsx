import { CreditMeter } from "@/components/credit-meter";

/** Where the console shell shows the active console key's credits. */
export function CreditMeterSlot() {
  return <CreditMeter />;
}
