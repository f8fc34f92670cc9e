/**
 * The credit meter and the page-cost context. The console layout wraps the shell in
 * <OperationCostProvider> and renders <CreditMeter />; a page announces its lookup cost with
 * useOperationCost(4) (client) or <OperationCost credits={4} /> (server component).
 */
export { CreditMeter, type CreditMeterProps } from "./credit-meter";
export { OperationCost, OperationCostProvider, useCurrentOperationCost, useOperationCost } from "./operation-cost";
