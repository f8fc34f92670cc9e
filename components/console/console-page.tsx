import type { ReactNode } from "react";
import { ConsolePage } from "@/components/ui/page-header";
import { requireAdmin, requireUser } from "@/lib/auth/require-user";

/** A console page that is its header and one piece of content, fixed when the module loads. */
export type ConsolePageSpec = { title: string; description: ReactNode; content: ReactNode };

const render = ({ title, description, content }: ConsolePageSpec) => (
  <ConsolePage title={title} description={description}>
    {content}
  </ConsolePage>
);

/** A page any signed-in user may open; the console layout has checked the session. */
export const consolePage = (spec: ConsolePageSpec) =>
  function Page() {
    return render(spec);
  };

/** A page that checks the session itself: anyone signed out is sent to sign in and back to `path`. */
export const userPage = (path: string, spec: ConsolePageSpec) =>
  async function Page() {
    await requireUser(path);
    return render(spec);
  };

/** An admin page: signed out, sign in and back to `path`; an analyst gets a 404. */
export const adminPage = (path: string, spec: ConsolePageSpec) =>
  async function Page() {
    await requireAdmin(path);
    return render(spec);
  };
