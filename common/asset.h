/*
 * asset.h — a file built into a program (cmake/embed.cmake generates the tables).
 */
#ifndef EG_ASSET_H
#define EG_ASSET_H

#include <stddef.h>

typedef struct eg_asset {
  const char *path;          /* URL path: "/index.html" */
  const char *content_type;  /* "text/html; charset=utf-8" */
  const unsigned char *data; /* static; a NUL follows the last byte */
  size_t len;
} eg_asset;

#endif
