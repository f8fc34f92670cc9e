"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Input } from "@/components/ui/input";
import { chooseConsoleKey, keysQueryKey, refreshAfterKeyChange, type ApiKeyView } from "@/lib/query/keys";
import { KeyDialogFooter, type KeyDialogProps } from "./key-dialog-footer";
import { bindValue } from "@/components/ui/bind-value";

const TOKEN_HANDLING = "The server checks it against its hash, then keeps it encrypted and never shows it again.";

/**
 * Body of the "Use for console" dialog. A key issued for the console switches with one click;
 * any other key needs its token pasted once, which the server checks and keeps encrypted.
 */
export function ConsoleKeyForm({ apiKey, onChosen, onCancel }: KeyDialogProps & { onChosen: (key: ApiKeyView) => void }) {
  const queryClient = useQueryClient();
  const [token, setToken] = useState("");
  const [missingToken, setMissingToken] = useState(false);
  const needsToken = !apiKey.consoleCapable;
  const mutation = useMutation({
    mutationKey: [...keysQueryKey, "console"],
    mutationFn: (pasted: string | undefined) => chooseConsoleKey(apiKey.id, pasted),
    // The variables may hold a pasted token: keep no copy in the mutation cache.
    gcTime: 0,
    onSettled: () => refreshAfterKeyChange(queryClient),
  });

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const pasted = token.trim();
    if (needsToken && pasted === "") {
      setMissingToken(true);
      return;
    }
    setMissingToken(false);
    mutation.mutate(needsToken ? pasted : undefined, {
      onSuccess: (key) => {
        setToken("");
        mutation.reset();
        onChosen(key);
      },
    });
  };

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      {needsToken ? (
        <Input
          label="This key's token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          {...bindValue(token, setToken)}
          error={missingToken ? "Paste the token of this key." : undefined}
          hint={`Paste the token ending in ${apiKey.tokenHint.replace("…", "")} once. ${TOKEN_HANDLING}`}
          data-testid="console-token-input"
        />
      ) : (
        <p className="text-sm">
          The console will run your lookups with <strong className="font-semibold">{apiKey.name}</strong> and spend its
          credits.
        </p>
      )}
      <KeyDialogFooter
        action="console"
        mutation={mutation}
        onCancel={onCancel}
        confirmLabel="Use for console"
        pendingLabel="Saving…"
      />
    </form>
  );
}
