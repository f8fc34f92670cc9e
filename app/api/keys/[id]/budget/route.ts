import { consoleRoute } from "@/lib/console-api/handler";
import { budgetResponse, updateBudget } from "@/lib/console-api/alerts";
import { budgetBody } from "@/lib/alerts/settings";

export const dynamic = "force-dynamic";

export const GET = consoleRoute({}, (context) => budgetResponse(context, context.params.id ?? ""));

/** {dailyCreditCap: credits per UTC day, or null for none}. Over it /v1 answers 402. */
export const PUT = consoleRoute({ body: budgetBody }, (context) =>
  updateBudget(context, context.params.id ?? "", context.body.dailyCreditCap),
);
