/**
 * The MCP server name every provider registers the agent's loopback host-tools endpoint under.
 * Reserved: no agent MCP server may use it (createAgent refuses one that does).
 */
export const HOST_TOOLS_SERVER_NAME = "host";
