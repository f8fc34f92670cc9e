import type { Metadata } from "next";
import { adminPage } from "@/components/console/console-page";
import { UploadForm } from "./upload-form";

export const metadata: Metadata = { title: "Upload records" };

export default adminPage("/admin/upload", {
  title: "Upload records",
  description: (
    <>
      Load a snapshot file into the record store while the server runs, with the same checks as{" "}
      <code className="font-mono">npm run import</code> (which cannot run beside a server on the embedded
      database). Records already stored identically are left alone.
    </>
  ),
  content: <UploadForm />,
});
