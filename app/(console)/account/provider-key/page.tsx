import type { Metadata } from "next";
import { userPage } from "@/components/console/console-page";
import { ProviderKeyPanel } from "./provider-key-panel";

export const metadata: Metadata = { title: "Provider key" };

export default userPage("/account/provider-key", {
  title: "Provider key",
  description: "The key of your own account at the data provider. Lookups that are not in our cache go to the provider with it, from the console and from your API keys alike; our credits and usage pages still count every lookup.",
  content: <ProviderKeyPanel />,
});
