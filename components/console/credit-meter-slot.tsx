/**
 * Where the console shell shows the signed-in user's credits. Intentionally empty: the credit
 * meter (components/credit-meter) plugs in here, and the shell stays unchanged.
 */
export function CreditMeterSlot() {
  return null;
}
