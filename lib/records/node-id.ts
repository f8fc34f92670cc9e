/**
 * Pin-board node ids are opaque to clients: base64 of "User:<entityId>", the way the real site
 * encodes them. Followers' `id` and the target user's `data.node_id` share the encoding.
 */
const PREFIX = "User:";

export const nodeIdFor = (entityId: string): string =>
  Buffer.from(`${PREFIX}${entityId}`, "utf8").toString("base64");

/** The entity id inside a node id, or null when it is not one of ours. */
export const entityIdFromNodeId = (nodeId: string): string | null => {
  const decoded = Buffer.from(nodeId, "base64").toString("utf8");
  if (!decoded.startsWith(PREFIX)) return null;
  const entityId = decoded.slice(PREFIX.length);
  if (!/^\d{1,20}$/.test(entityId) || nodeIdFor(entityId) !== nodeId) return null;
  return entityId;
};
