/*
 * daemon_main.c — main() of a daemon: built once per daemon with EG_DAEMON naming its
 * spec (services/daemons.h).
 */
#include "services/daemons.h"

/* Signals are routed before main() and before the program's other constructors: the
 * earliest moment this program controls (libraries' own constructors run earlier still,
 * which is why eg_daemon_signals_init also installs a handler). */
__attribute__((constructor(101))) static void route_signals_early(void) {
  eg_daemon_signals_init();
}

int main(int argc, char **argv) { return eg_daemon_main(&EG_DAEMON, argc, argv); }
