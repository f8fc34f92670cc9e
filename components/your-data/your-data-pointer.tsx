import Link from "next/link";
import { env } from "@/lib/env";
import { buttonStyles } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardTitle } from "@/components/ui/card";

/**
 * The way from the demo data set to a user's own: import files of records, or connect a data
 * provider. Worded for the server's data source; the steps are in docs/operations.md ("Your own data").
 */
export function YourDataPointer() {
  const { DATA_SOURCE: dataSource, UPSTREAM_KEY_MODE: keyMode } = env();
  const perUserKeys = dataSource !== "store" && keyMode === "per-user";
  return (
    <section aria-labelledby="your-data-heading" className="mx-auto max-w-6xl px-4 pb-16 sm:px-6 sm:pb-20">
      <Card data-testid="your-data">
        <CardContent className="flex flex-col items-start gap-3">
          <CardTitle as="h2" id="your-data-heading">
            Your own data
          </CardTitle>
          <CardDescription className="max-w-3xl">
            {dataSource === "store" ? (
              <>
                A fresh install answers from a demo data set. Bring your own records: an administrator imports a file
                of events, follower lists or publication lists (<code className="font-mono">samples/my-data.ndjson</code> in
                the repository shows the format), or the operator connects a data provider (
                <code className="font-mono">DATA_SOURCE=upstream</code>).
              </>
            ) : perUserKeys ? (
              "Lookups go to the data provider with each analyst's own provider key: add yours, and every lookup you make uses it. Files of records an administrator imports are served as well."
            ) : (
              "Lookups go to the data provider this server is connected to. Files of records an administrator imports are served as well."
            )}{" "}
            The steps are in <code className="font-mono">docs/operations.md</code>, under “Your own data”.
          </CardDescription>
          <div className="flex flex-wrap gap-2 pt-1">
            {perUserKeys ? (
              <Link href="/account/provider-key" prefetch={false} className={buttonStyles({ variant: "secondary", size: "sm" })}>
                Add your provider key
              </Link>
            ) : null}
            <Link href="/admin/upload" prefetch={false} className={buttonStyles({ variant: perUserKeys ? "ghost" : "secondary", size: "sm" })}>
              Upload records (administrators)
            </Link>
          </div>
        </CardContent>
      </Card>
    </section>
  );
}
