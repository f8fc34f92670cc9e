import type { Metadata } from "next";
import { adminPage } from "@/components/console/console-page";
import { SystemInstances } from "@/components/system/system-instances";

export const metadata: Metadata = { title: "System" };

export default adminPage("/admin/system", {
  title: "System",
  description:
    "Every instance of the service: its version, uptime, readiness, lookups per second, errors and latency over the last minute, batch and database queues.",
  content: <SystemInstances />,
});
