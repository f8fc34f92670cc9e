import type { Metadata } from "next";
import { KeysConsole } from "@/components/keys/keys-console";
import { ConsolePage } from "@/components/ui/page-header";
import { requireUser } from "@/lib/auth/require-user";
import { toMe } from "@/lib/users/views";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const user = await requireUser("/keys");
  return (
    <ConsolePage
      title="API keys"
      description={
        <>
          Keys authenticate calls to <code className="font-mono text-foreground">/v1</code>. Each holds its own credits and
          a per-second limit; its token is shown once, when it is created or rolled.
        </>
      }
    >
      <KeysConsole initialMe={toMe(user)} />
    </ConsolePage>
  );
}
