"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { Button, type ButtonProps } from "@/components/ui/button";

export type SignOutButtonProps = Omit<ButtonProps, "onClick" | "children"> & {
  /** Where to land afterwards; a same-origin path. */
  callbackUrl?: string;
};

/** Ends this browser's session (next-auth clears the cookie) and leaves for the sign-in page. */
export function SignOutButton({ callbackUrl = "/signin", variant = "secondary", size = "sm", disabled, ...props }: SignOutButtonProps) {
  const [pending, setPending] = useState(false);
  const onClick = async () => {
    setPending(true);
    try {
      await signOut({ callbackUrl });
    } catch {
      // The cookie could not be cleared through next-auth (offline?): the sign-in page still ends the visit here.
      window.location.assign(callbackUrl);
    }
  };
  return (
    <Button variant={variant} size={size} onClick={onClick} disabled={disabled || pending} aria-busy={pending || undefined} {...props}>
      {pending ? "Signing out…" : "Sign out"}
    </Button>
  );
}
