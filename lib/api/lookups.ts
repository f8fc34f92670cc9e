import { entityIdFromNodeId } from "@/lib/connectors/node-id";
import { invalid } from "./errors";
import type { LookupSpec } from "./pipeline";
import {
  parseEventById,
  parseEventByUrl,
  parseFollowers,
  parsePublications,
  type EventByIdParams,
  type EventByUrlParams,
  type PublicationsParams,
} from "./params";
import type { FollowersQuery } from "@/lib/connectors/types";

/** The four operations as pipeline specs: how to read their parameters and whom to ask. */
export const eventByUrl: LookupSpec<EventByUrlParams> = {
  operation: "event_details",
  paramNames: ["url"],
  parse: (query, context) => parseEventByUrl(query, { hosts: context.eventSiteHosts }),
  lookup: (params, connector, context) => connector.event(params.eventId, context),
};

export const eventById: LookupSpec<EventByIdParams> = {
  operation: "event_details_id",
  paramNames: ["event_id"],
  parse: (query) => parseEventById(query),
  lookup: (params, connector, context) => connector.event(params.eventId, context),
};

export const followers: LookupSpec<FollowersQuery> = {
  operation: "followers",
  paramNames: ["userid", "node_id", "cursor"],
  parse: (query, context) => {
    const params = parseFollowers(query);
    if (params.kind === "first") return { userId: params.userId, offset: 0 };
    const userId = entityIdFromNodeId(params.nodeId);
    if (userId === null) throw invalid("node_id");
    if (params.cursor === undefined) return { userId, offset: 0 };
    const cursor = context.cursors.decode(params.cursor);
    if (cursor === null || cursor.userId !== userId) throw invalid("cursor");
    return { userId, offset: cursor.offset };
  },
  lookup: (params, connector, context) => connector.followers(params, context),
};

export const publications: LookupSpec<PublicationsParams> = {
  operation: "get_user_publications",
  paramNames: ["urn", "page"],
  parse: (query) => parsePublications(query),
  lookup: (params, connector, context) => connector.publications(params.urn, params.page, context),
};
