import type { BootstrapResult } from "@/lib/users/bootstrap";

/**
 * The banner's line on how to sign in after `npm start` (scripts/start.ts). A generated password
 * is printed only where a person reads it (`showPassword`: the banner goes to a terminal); into a
 * captured stream (a file, a journal, a log collector) the line names the file that holds it.
 */
export const signInHint = (admin: BootstrapResult, options: { showPassword: boolean } = { showPassword: false }): string => {
  switch (admin.kind) {
    case "generated":
      return options.showPassword
        ? `  Sign in as ${admin.email} with password ${admin.password}\n` +
            `  (shown once; also saved to ${admin.file}, readable only by you — change it after signing in)`
        : `  Sign in as ${admin.email} with the password saved in ${admin.file} (readable only by you — change it after signing in)`;
    case "configured":
      return `  Sign in as ${admin.email} with ADMIN_PASSWORD.`;
    case "existing":
      return admin.file
        ? `  Sign in with your account (the first admin's generated password is in ${admin.file}).`
        : "  Sign in with your account.";
  }
};
