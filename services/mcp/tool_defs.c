/*
 * tool_defs.c — what each tool says about itself. The schemas are JSON Schema (draft
 * 2020-12, the default of MCP 2025-11-25) kept as text here so they read as they are sent.
 * They describe what tools.c accepts; tools.c checks every argument itself, so a call
 * that ignores them gets a tool error naming the argument, never a half-done write.
 */
#include "services/mcp/tool_defs.h"

#include <stddef.h>

#define TIME_HINT "ISO-8601 date or time, e.g. 2024-05-01 or 2024-05-01T09:30:00Z"
#define USER_PROP                                                                                  \
  "\"user\": {\"type\": \"string\", \"description\": \"Whose memory: an end user of this tenant. " \
  "Default: the "                                                                                  \
  "user engram-mcp was started for.\"}"
#define ENTITY_PROP                                                                            \
  "\"entity\": {\"type\": \"string\", \"description\": \"The person, place or thing, by name " \
  "(e.g. \\\"Maya "                                                                            \
  "Patel\\\", \\\"Lisbon\\\"). Default: the user themselves (facts they stated about "         \
  "themselves).\"}"
#define RELATION_PROP                                                                          \
  "\"relation\": {\"type\": \"string\", \"description\": \"One relation in UPPER_SNAKE case, " \
  "e.g. LIVES_IN, "                                                                            \
  "WORKS_AT, DIET, PARTNER. Default: every relation.\"}"

static const struct {
  const char *name, *title, *description, *schema, *annotations;
} defs[] = {
    {"remember", "Remember",
     "Store something in the user's long-term memory (Engram): either a conversation (`messages`, "
     "each with "
     "role, content and, when known, the time it was said) or a document (`text`, with an optional "
     "`title`). "
     "Pass real dates: Engram keeps when each thing became true, so a later \"I moved to Lisbon\" "
     "replaces an "
     "earlier home instead of contradicting it. Facts the user states about themselves (where they "
     "live and "
     "work, diet, partner, ...) are extracted into a knowledge graph. Sending the same content "
     "again stores "
     "nothing twice. Returns what was stored (counts of chunks, facts and entities, the session or "
     "document id).",
     "{\"type\": \"object\", \"properties\": {"
     "\"messages\": {\"type\": \"array\", \"minItems\": 1, \"description\": \"The turns of a "
     "conversation, in "
     "order.\", \"items\": {\"type\": \"object\", \"properties\": {"
     "\"role\": {\"type\": \"string\", \"enum\": [\"user\", \"assistant\", \"system\", \"tool\"]}, "
     "\"content\": {\"type\": \"string\", \"description\": \"What was said.\"}, "
     "\"time\": {\"type\": \"string\", \"description\": \"When it was said: " TIME_HINT ".\"}}, "
     "\"required\": [\"role\", \"content\"], \"additionalProperties\": false}}, "
     "\"session_id\": {\"type\": \"string\", \"description\": \"An id for the conversation. "
     "Default: one derived "
     "from its content.\"}, "
     "\"session_time\": {\"type\": \"string\", \"description\": \"When the conversation took "
     "place: " TIME_HINT ". Default: now.\"}, "
     "\"text\": {\"type\": \"string\", \"description\": \"A document's text (instead of "
     "messages).\"}, "
     "\"title\": {\"type\": \"string\", \"description\": \"The document's title.\"}, "
     "\"document_id\": {\"type\": \"string\", \"description\": \"An id for the document. Default: "
     "one derived from "
     "its text.\"}, "
     "\"time\": {\"type\": \"string\", \"description\": \"The document's date: " TIME_HINT
     ".\"}, " USER_PROP "}, \"additionalProperties\": false}",
     "{\"readOnlyHint\": false, \"destructiveHint\": false, \"idempotentHint\": true, "
     "\"openWorldHint\": false}"},
    {"recall", "Recall",
     "Ask the user's long-term memory a question in plain language (\"Where do I live?\", \"What "
     "did we decide "
     "about the launch?\"). Returns a dated context block to answer from, then the items it was "
     "built from: "
     "excerpts of past conversations and documents, facts and paths in the knowledge graph. Each "
     "fact carries a "
     "status: POTENTIALLY_STALE means something it rests on has changed since, so check before "
     "relying on it. "
     "Use `at` to ask as of a past date and `known_at` for what was known at a past date.",
     "{\"type\": \"object\", \"properties\": {"
     "\"question\": {\"type\": \"string\", \"description\": \"The question, in the user's "
     "words.\"}, "
     "\"at\": {\"type\": \"string\", \"description\": \"Answer as of this time (" TIME_HINT
     "). Default: now.\"}, "
     "\"known_at\": {\"type\": \"string\", \"description\": \"Use only what Engram had learned by "
     "this time (" TIME_HINT "). Default: now.\"}, "
     "\"k\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100, \"description\": \"How many "
     "excerpts at most "
     "(facts and paths: k/2 each). Default: 10.\"}, " USER_PROP
     "}, \"required\": [\"question\"], \"additionalProperties\": false}",
     "{\"readOnlyHint\": true, \"openWorldHint\": false}"},
    {"facts", "Current facts",
     "The current state of an entity in the knowledge graph: every value that holds now (or at "
     "`at`), such as "
     "where a person lives or works, with since when, when Engram learned it and why. Without "
     "`entity`, the "
     "facts about the user themselves.",
     "{\"type\": \"object\", \"properties\": {" ENTITY_PROP ", " RELATION_PROP ", "
     "\"at\": {\"type\": \"string\", \"description\": \"The state as of this time (" TIME_HINT
     "). Default: now.\"}, "
     "\"known_at\": {\"type\": \"string\", \"description\": \"Only what Engram had learned by this "
     "time (" TIME_HINT "). Default: now.\"}, " USER_PROP "}, \"additionalProperties\": false}",
     "{\"readOnlyHint\": true, \"openWorldHint\": false}"},
    {"history", "Fact history",
     "How facts about an entity changed over time and why: every value a relation has had, oldest "
     "first, each "
     "marked current, replaced (by which fact) or ended, with its valid time, when Engram learned "
     "it and the "
     "reason or words it came from. Without `entity`, the user's own history.",
     "{\"type\": \"object\", \"properties\": {" ENTITY_PROP ", " RELATION_PROP ", "
     "\"known_at\": {\"type\": \"string\", \"description\": \"Only what Engram had learned by this "
     "time (" TIME_HINT "). Default: now.\"}, "
     "\"limit\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 1000, \"description\": \"At "
     "most this many "
     "entries. Default: 100.\"}, " USER_PROP "}, \"additionalProperties\": false}",
     "{\"readOnlyHint\": true, \"openWorldHint\": false}"},
    {"forget", "Forget a user",
     "Erase everything Engram remembers about one user (their conversations, documents, facts and "
     "index entries, "
     "rewritten out of storage), for a user's request to be forgotten. Irreversible: set `confirm` "
     "to true. Only "
     "available when engram-mcp has an admin token; otherwise it answers an error saying so.",
     "{\"type\": \"object\", \"properties\": {"
     "\"confirm\": {\"type\": \"boolean\", \"const\": true, \"description\": \"Must be true: the "
     "erasure cannot be "
     "undone.\"}, " USER_PROP "}, \"required\": [\"confirm\"], \"additionalProperties\": false}",
     "{\"readOnlyHint\": false, \"destructiveHint\": true, \"idempotentHint\": true, "
     "\"openWorldHint\": false}"},
};

cJSON *eg_mcp_tool_defs(void) {
  cJSON *list = cJSON_CreateArray();
  for (size_t i = 0; i < sizeof defs / sizeof *defs; i++) {
    cJSON *t = cJSON_CreateObject();
    cJSON_AddStringToObject(t, "name", defs[i].name);
    cJSON_AddStringToObject(t, "title", defs[i].title);
    cJSON_AddStringToObject(t, "description", defs[i].description);
    cJSON_AddItemToObject(t, "inputSchema", cJSON_Parse(defs[i].schema));
    cJSON_AddItemToObject(t, "annotations", cJSON_Parse(defs[i].annotations));
    cJSON_AddItemToArray(list, t);
  }
  return list;
}
