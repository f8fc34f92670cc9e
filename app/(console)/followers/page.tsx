import type { Metadata } from "next";
import { FollowersView } from "@/components/followers/followers-view";
import { consolePage } from "@/components/console/console-page";
import { SearchParamsBoundary } from "@/components/ui/search-params-boundary";

export const metadata: Metadata = { title: "Followers" };

export default consolePage({
  title: "Followers",
  description: "The followers of a pin-board user, 25 per page. Scroll to load more, or load many pages at once within a credit budget; export what is loaded as CSV or JSON.",
  content: <SearchParamsBoundary><FollowersView /></SearchParamsBoundary>,
});
