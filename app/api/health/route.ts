import { healthReport } from "@/lib/health";

export const dynamic = "force-dynamic";

export const GET = async (): Promise<Response> => {
  const report = await healthReport();
  return Response.json(report, { status: report.status === "ok" ? 200 : 503, headers: { "Cache-Control": "no-store" } });
};
