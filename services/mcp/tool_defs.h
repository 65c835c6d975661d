/*
 * tool_defs.h — the descriptions and input schemas of engram-mcp's tools, as an LLM
 * reads them in tools/list.
 */
#ifndef EG_MCP_TOOL_DEFS_H
#define EG_MCP_TOOL_DEFS_H

#include <cjson/cJSON.h>

/* A new array of Tool objects (name, title, description, inputSchema, annotations).
 * Caller frees with cJSON_Delete. */
cJSON *eg_mcp_tool_defs(void);

#endif
