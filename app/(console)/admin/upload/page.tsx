import type { Metadata } from "next";
import { notFound, redirect } from "next/navigation";
import { currentUser } from "@/lib/auth/session";
import { UploadForm } from "./upload-form";

export const metadata: Metadata = { title: "Upload records" };

export default async function AdminUploadPage() {
  const user = await currentUser();
  if (!user) redirect("/signin?callbackUrl=%2Fadmin%2Fupload");
  if (user.role !== "admin") notFound();

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Upload records</h1>
        <p className="text-sm text-muted">
          Load a snapshot file into the record store while the server runs, with the same checks as{" "}
          <code className="font-mono">npm run import</code> (which cannot run beside a server on the embedded
          database). Records already stored identically are left alone.
        </p>
      </div>
      <UploadForm />
    </div>
  );
}
