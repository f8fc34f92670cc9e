import type { Metadata } from "next";
import { PublicationsView } from "@/components/publications/publications-view";
import { consolePage } from "@/components/console/console-page";
import { SearchParamsBoundary } from "@/components/ui/search-params-boundary";

export const metadata: Metadata = { title: "Publications" };

export default consolePage({
  title: "Publications",
  description: "The publications listed on a professional-network profile, 10 per page. The page is part of the address, so a link opens the same page; export what is loaded as CSV or JSON.",
  content: <SearchParamsBoundary><PublicationsView /></SearchParamsBoundary>,
});
