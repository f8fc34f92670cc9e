"use client";

import { useMutation } from "@tanstack/react-query";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { ConfirmDialog } from "@/components/console/confirm-dialog";
import { Button } from "@/components/ui/button";
import { Card, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { endAllMySessions } from "@/lib/query/account";

const AFTERWARDS = "/signin?notice=signed-out-everywhere";

/** Ends every session of the account on the server, then this browser's cookie. */
export function SignOutEverywhere() {
  const [confirming, setConfirming] = useState(false);
  const mutation = useMutation({
    mutationFn: endAllMySessions,
    onSuccess: async () => {
      try {
        await signOut({ callbackUrl: AFTERWARDS });
      } catch {
        window.location.assign(AFTERWARDS);
      }
    },
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle as="h2">Sessions</CardTitle>
        <CardDescription>
          Signed in somewhere you no longer use, or lost a device? End every session of this account, including this one.
        </CardDescription>
      </CardHeader>
      <CardFooter className="mt-5">
        <Button variant="secondary" onClick={() => setConfirming(true)}>
          Sign out everywhere
        </Button>
      </CardFooter>
      <ConfirmDialog
        open={confirming}
        title="Sign out everywhere?"
        description="Every browser signed in to this account, this one included, is signed out at once. API keys keep working."
        confirmLabel="Sign out everywhere"
        pendingLabel="Signing out…"
        variant="danger"
        pending={mutation.isPending || mutation.isSuccess}
        error={mutation.error?.message}
        onConfirm={() => mutation.mutate()}
        onClose={() => {
          setConfirming(false);
          mutation.reset();
        }}
      />
    </Card>
  );
}
