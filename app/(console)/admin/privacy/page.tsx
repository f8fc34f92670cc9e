import type { Metadata } from "next";
import { adminPage } from "@/components/console/console-page";
import { PrivacyAdmin } from "@/components/privacy/privacy-admin";

export const metadata: Metadata = { title: "Privacy" };

export default adminPage("/admin/privacy", {
  title: "Privacy",
  description:
    "Answer a data subject's requests: download everything held about a person, or erase it and suppress it for good. Retention limits apply by themselves (docs/security.md).",
  content: <PrivacyAdmin />,
});
