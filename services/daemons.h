/*
 * daemons.h — the four daemons as specs for common/daemon.h: each executable is
 * services/daemon_main.c built with one of them; tests and fuzz targets open them
 * in-process with eg_daemon_open.
 */
#ifndef EG_DAEMONS_H
#define EG_DAEMONS_H

#include "common/daemon.h"

extern const eg_daemon_spec eg_graphd_daemon;  /* services/graphd/daemon.c */
extern const eg_daemon_spec eg_vectord_daemon; /* services/vectord/daemon.c */
extern const eg_daemon_spec eg_ingestd_daemon; /* services/ingestd/daemon.c */
extern const eg_daemon_spec eg_recalld_daemon; /* services/recalld/daemon.c */

#endif
