import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { KeysConsole } from "@/components/keys/keys-console";
import { currentUser } from "@/lib/auth/session";
import { toMe } from "@/lib/users/views";

export const metadata: Metadata = { title: "API keys" };

export default async function KeysPage() {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Fkeys");

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
        <p className="text-sm text-muted">
          Keys authenticate calls to <code className="font-mono text-foreground">/v1</code>. Each holds its own credits and
          a per-second limit; its token is shown once, when it is created or rolled.
        </p>
      </div>
      <KeysConsole initialMe={toMe(user)} />
    </div>
  );
}
