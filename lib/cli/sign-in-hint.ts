import type { BootstrapResult } from "@/lib/users/bootstrap";

/** The banner's line on how to sign in after `npm start` (scripts/start.ts). */
export const signInHint = (admin: BootstrapResult): string => {
  switch (admin.kind) {
    case "generated":
      return (
        `  Sign in as ${admin.email} with password ${admin.password}\n` +
        `  (shown once; also saved to ${admin.file}, readable only by you — change it after signing in)`
      );
    case "configured":
      return `  Sign in as ${admin.email} with ADMIN_PASSWORD.`;
    case "existing":
      return admin.file
        ? `  Sign in with your account (the first admin's generated password is in ${admin.file}).`
        : "  Sign in with your account.";
  }
};
